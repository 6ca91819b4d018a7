// A hook request on the daemon's socket: its own facts (name, deadline,
// lateness) are fields of the frame, and the caller's environment is sent
// only as far as the plugin reads it.

package hookproto

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// The fields of a request frame, in order. A frame of another count (an
// older client's, which sent the whole environment in place of the
// request's own fields) is refused before it is read: its client
// decides in-process.
const (
	FieldBuild = iota
	FieldHarness
	FieldEvent
	FieldRequestID
	FieldDeadline
	FieldLate
	FieldEnviron
	FieldPayload
	// RequestFields is how many fields a request has.
	RequestFields
)

// Request is one hook as a client hands it to the daemon.
type Request struct {
	Harness, Event string
	// ID names the hook (RequestID): a hook asked again under the same
	// name (a finisher, a retry on a new connection) is decided and
	// stored once.
	ID string
	// Deadline is what is left of the hook's budget: the daemon answers
	// by then, with no decision if it has none yet. Zero: Default.
	Deadline time.Duration
	// Late marks a hook finished in the background (EnvLate): nobody
	// waits for its answer.
	Late bool
	// Environ is what the plugin reads of the caller's environment
	// (PluginEnviron), as KEY=VALUE entries.
	Environ []string
	Payload []byte
}

// Fields is the request as the frame's fields, after build (ID).
func (r Request) Fields(build string) [][]byte {
	f := make([][]byte, RequestFields)
	f[FieldBuild] = []byte(build)
	f[FieldHarness] = []byte(r.Harness)
	f[FieldEvent] = []byte(r.Event)
	f[FieldRequestID] = []byte(r.ID)
	if r.Deadline > 0 {
		f[FieldDeadline] = []byte(strconv.FormatInt(max(r.Deadline.Milliseconds(), 1), 10))
	}
	if r.Late {
		f[FieldLate] = []byte("1")
	}
	f[FieldEnviron] = []byte(strings.Join(r.Environ, "\x00"))
	f[FieldPayload] = r.Payload
	return f
}

// ErrRequest is returned for a frame that is not a request.
var ErrRequest = errors.New("wire: not a hook request")

// ParseRequest reads a request from a frame's fields (as ReadAdmitted
// returns them; the build is the caller's to check). A deadline that is
// not a positive number of milliseconds is the Default, as in Hook.
func ParseRequest(f [][]byte) (Request, error) {
	if len(f) != RequestFields {
		return Request{}, ErrRequest
	}
	r := Request{Harness: string(f[FieldHarness]), Event: string(f[FieldEvent]), ID: string(f[FieldRequestID]),
		Deadline: budgetMS(string(f[FieldDeadline])), Late: len(f[FieldLate]) > 0, Payload: f[FieldPayload]}
	if len(f[FieldEnviron]) > 0 {
		r.Environ = strings.Split(string(f[FieldEnviron]), "\x00")
	}
	return r, nil
}

// Env reads one variable of the request's Environ ("" when absent).
func (r Request) Env(key string) string {
	for _, kv := range r.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// PluginVars are the variables the plugin reads by name
// (abi.EnvNudgeEvery, abi.EnvCapture; a test holds them equal): this
// package does not link the abi package's encoding/json.
var PluginVars = []string{"CTXHOOK_NUDGE_EVERY", "CTXHOOK_CAPTURE"}

// envStoreURL is config.EnvStoreURL: the shared store's URL, whose
// password the host has the plugin redact (host/internal/ownsecrets).
const envStoreURL = "CTXHOOK_STORE_URL"

// Sensitive reports whether an entry KEY=VALUE may hold a secret the
// plugin redacts wherever it appears: a name that could name one and a
// value long enough to be redacted. The plugin's own rule
// (abi.HandleRequest.Environ) is narrower; this spares sending PATH and
// its kind with every hook.
func Sensitive(kv string) bool {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || len(v) < 8 {
		return false
	}
	if k == envStoreURL {
		return true
	}
	upper := strings.ToUpper(k)
	for _, w := range []string{"PASS", "PWD", "SECRET", "TOKEN", "KEY", "AUTH", "COOKIE", "CREDENTIAL", "SESSION"} {
		if strings.Contains(upper, w) {
			return true
		}
	}
	return false
}

// WholeEnviron reports whether a hook needs the caller's whole
// environment: Claude Code's SessionStart, where the host checks that
// the user's mcp_tool hooks will be answered by starting ctxhook's MCP
// server as Claude Code would, in the hook's environment.
func WholeEnviron(harness, event string) bool {
	return harness == "claude-code" && event == "SessionStart"
}

// PluginEnviron is what a client sends of its environment for a hook:
// the variables the plugin reads (PluginVars) and the sensitive entries
// it redacts; for a hook that needs it (WholeEnviron), all of it.
func PluginEnviron(harness, event string, environ []string) []string {
	if WholeEnviron(harness, event) {
		return environ
	}
	var out []string
	for _, kv := range environ {
		if Sensitive(kv) || pluginVar(kv) {
			out = append(out, kv)
		}
	}
	return out
}

func pluginVar(kv string) bool {
	for _, k := range PluginVars {
		if len(kv) > len(k) && kv[len(k)] == '=' && strings.HasPrefix(kv, k) {
			return true
		}
	}
	return false
}

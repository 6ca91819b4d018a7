package firing

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/platform"
)

// The states doctor reports per harness and event.
const (
	Firing        = "configured and firing"
	Silent        = "configured but silent"
	NotConfigured = "not configured"
	NotYet        = "configured, not fired yet"
)

// Status is one event's line in doctor (and an element of doctor --json).
type Status struct {
	Harness       string    `json:"harness"`
	Event         string    `json:"event"`
	State         string    `json:"state"`
	LastFired     time.Time `json:"last_fired,omitzero"`
	ClientVersion string    `json:"client_version,omitempty"`
	// Missed is the latest session the harness's transcripts show calling
	// MCP tools for which this hook never arrived.
	Missed *Session `json:"missed,omitempty"`
}

// everySession are the events a harness fires in every session that
// calls an MCP tool: their absence from such a session is a silence.
// Other events (compaction, session end) need not have fired.
var everySession = map[string][]string{
	"claude-code": {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"},
	"codex":       {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"},
}

// Report says, for each of harness's events, whether its hook is
// configured (wired) and whether it fires, from the records in dir and
// the harness's transcripts.
func Report(dir, harness string, events []string, wired map[string]bool, getenv func(string) string, now time.Time) []Status {
	fired := Load(dir, harness)
	sessions := Sessions(harness, getenv, now)
	var out []Status
	for _, ev := range events {
		st := Status{Harness: harness, Event: ev}
		f := fired[ev]
		if f != nil {
			st.LastFired = f.Last
			st.ClientVersion = versionOf(f, sessions)
		}
		if slices.Contains(everySession[harness], ev) {
			st.Missed = missed(f, sessions)
		}
		switch {
		case !wired[ev]:
			st.State = NotConfigured
		case st.Missed != nil:
			st.State = Silent
		case f == nil:
			st.State = NotYet
		default:
			st.State = Firing
		}
		out = append(out, st)
	}
	return out
}

// missed is the latest session with MCP calls that this hook did not
// see, if no hook has come since its last call; nil otherwise.
func missed(f *Fired, sessions []Session) *Session {
	if len(sessions) == 0 {
		return nil
	}
	latest := sessions[0]
	if f != nil && (slices.Contains(f.Sessions, HashID(latest.ID)) || f.Last.After(latest.LastCall)) {
		return nil
	}
	return &latest
}

// versionOf is the client version of the session that fired last, as its
// transcript tells it.
func versionOf(f *Fired, sessions []Session) string {
	for _, s := range sessions {
		if HashID(s.ID) == f.Session || s.File == f.Transcript {
			return s.Version
		}
	}
	if f.Transcript != "" {
		for _, r := range readers {
			if s := readSession(f.Transcript, r.line); s.Version != "" {
				return s.Version
			}
		}
	}
	return ""
}

// Print writes doctor's lines for sts; it returns how many need fixing.
func Print(w io.Writer, sts []Status) (problems int) {
	for _, st := range sts {
		switch st.State {
		case Firing:
			fmt.Fprintf(w, "  ok    %s hook %s: last fired %s%s\n", st.Event, st.State, st.LastFired.Local().Format(time.DateTime), client(st.ClientVersion))
		case Silent:
			problems++
			last := "never fired"
			if !st.LastFired.IsZero() {
				last = "last fired " + st.LastFired.Local().Format(time.DateTime)
			}
			fmt.Fprintf(w, "  FIX   %s hook %s: %s session %s made %d MCP call(s) on %s%s and no %s hook arrived (%s); the harness is not running ctxhook's hooks\n",
				st.Event, st.State, st.Harness, platform.TermSafe(st.Missed.ID), st.Missed.Calls, st.Missed.LastCall.Local().Format(time.DateOnly), client(st.Missed.Version), st.Event, last)
		case NotYet:
			fmt.Fprintf(w, "  --    %s hook %s\n", st.Event, st.State)
		}
	}
	return problems
}

func client(v string) string {
	if v == "" {
		return ""
	}
	return " (client " + platform.TermSafe(v) + ")"
}

// PrintJSON writes sts as doctor --json's document.
func PrintJSON(w io.Writer, sts []Status) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(map[string]any{"hooks": sts})
}

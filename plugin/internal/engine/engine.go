// Package engine is the core of ctxhook: it turns one request into a
// decision (the exact bytes for the harness, or the message a proxy
// forwards) and a list of effects for the host to apply. It does no I/O:
// clock, environment, config and state all arrive in the request. The same
// code runs natively in tests and inside plugin.wasm in every host.
//
// Each dialect (claude.go, proxy.go) parses its payload and drives the
// shared decision machinery here: state, redaction, events, tallies.
package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/jsonfast"
	"github.com/ctxhook/ctxhook/plugin/internal/redact"
)

// ErrHarness is returned for a harness this plugin does not speak.
var ErrHarness = errors.New("engine: unknown harness")

// dialect is one harness's way in: it parses a payload and decides.
type dialect interface {
	session() string
	decide(d *decision, event string)
}

// extraState is a dialect that needs state beyond the session's document.
type extraState interface{ stateKeys() []string }

// extraFiles is a dialect whose decision needs files read by the host.
type extraFiles interface{ files() []string }

func parse(harness, payload string, e *jsonfast.Expander) (dialect, error) {
	d, err := parseAs(harness, payload, e)
	if err != nil && !errors.Is(err, ErrHarness) {
		err = fmt.Errorf("%s: %w", harness, err)
	}
	return d, err
}

// A parser reads one harness's payload into its dialect.
type parser func(payload string, e *jsonfast.Expander) (dialect, error)

// dialects maps each harness, and the plugin's other request kinds, to
// the dialect that reads it. A descendant names its parent and reads
// with the parent's parser, given its kin (claudekin.go); the parent
// never asks which harness it serves. harness-configs/harnesses.json
// names the same parents (TestDialectsMatchRegistry).
var dialects = map[string]struct {
	parent string
	parse  parser
}{
	abi.HarnessClaudeCode: {"", parseClaudeAs(claudeCodeKin)},
	abi.HarnessCodex:      {abi.HarnessClaudeCode, parseClaudeAs(codexKin)},
	abi.HarnessDroid:      {abi.HarnessClaudeCode, parseClaudeAs(droidKin)},
	abi.HarnessCopilot:    {abi.HarnessClaudeCode, parseClaudeAs(copilotKin)},
	abi.HarnessQwen:       {abi.HarnessClaudeCode, parseClaudeAs(qwenKin)},
	abi.HarnessGemini:     {"", plain(parseGemini)},
	abi.HarnessCursor:     {"", plain(parseCursor)},
	abi.HarnessAuggie:     {"", plain(parseAuggie)},
	abi.HarnessCline:      {"", plain(parseCline)},
	abi.HarnessPi:         {"", plain(parsePi)},
	abi.HarnessOpenClaw:   {abi.HarnessPi, plain(parsePi)},
	abi.HarnessOpenCode:   {"", plain(parseOpenCode)},
	abi.HarnessKilo:       {abi.HarnessOpenCode, plain(parseOpenCode)},
	abi.HarnessMCPProxy:   {"", parseProxy},
	abi.HarnessTranscript: {"", plain(parseTranscript)},
}

// plain is a parser that needs no expander.
func plain(f func(payload string) (dialect, error)) parser {
	return func(payload string, _ *jsonfast.Expander) (dialect, error) { return f(payload) }
}

func parseAs(harness, payload string, e *jsonfast.Expander) (dialect, error) {
	if d, ok := dialects[harness]; ok {
		return d.parse(payload, e)
	}
	return nil, fmt.Errorf("%w %q", ErrHarness, harness)
}

// Prepare names the state a decision needs.
func Prepare(req abi.PrepareRequest) (abi.PrepareResponse, error) {
	return ParsePayload(req.Harness, req.Payload).Prepare()
}

// Handle decides one call.
func Handle(req abi.HandleRequest) (abi.HandleResponse, error) {
	return HandleParsed(req, ParsePayload(req.Harness, req.Payload))
}

// Parsed is a payload parsed once for both calls of a hook: a guest that
// keeps it between ctxhook_prepare and ctxhook_handle spares the host
// sending, and itself decoding, the payload twice. Prepare and Handle
// give the same results with or without it.
type Parsed struct {
	harness string
	payload string
	d       dialect
	err     error
	// json holds what parsing learnt of the payload's structure, for
	// the decision's own expansions.
	json *jsonfast.Expander
}

// ParsePayload parses payload as harness's.
func ParsePayload(harness, payload string) Parsed {
	e := &jsonfast.Expander{}
	d, err := parse(harness, payload, e)
	return Parsed{harness: harness, payload: payload, d: d, err: err, json: e}
}

// Harness is the harness the payload was parsed as.
func (p Parsed) Harness() string { return p.harness }

// Prepare names the state a decision on p needs.
func (p Parsed) Prepare() (abi.PrepareResponse, error) {
	if p.err != nil {
		return abi.PrepareResponse{}, p.err
	}
	keys := []string{stateKey(p.d.session())}
	if x, ok := p.d.(extraState); ok {
		keys = append(keys, x.stateKeys()...)
	}
	resp := abi.PrepareResponse{StateKeys: keys}
	if x, ok := p.d.(extraFiles); ok {
		resp.Files = x.files()
	}
	return resp, nil
}

// HandleParsed decides one call on an already parsed payload; req's own
// Payload is not read.
func HandleParsed(req abi.HandleRequest, p Parsed) (abi.HandleResponse, error) {
	if p.err != nil {
		return abi.HandleResponse{}, p.err
	}
	d := &decision{req: req, session: p.d.session()}
	if p.json != nil {
		d.json = *p.json
	}
	// Every dialect's parse checked the whole payload as JSON: what the
	// decision expands of it (a tool response) is not checked again.
	d.json.Valid(rawBytes(p.payload))
	d.loadState()
	p.d.decide(d, req.Event)
	return d.response(), nil
}

func orUnknown(session string) string {
	if session == "" {
		return "unknown"
	}
	return session
}

// decision accumulates what one request decides.
type decision struct {
	req      abi.HandleRequest
	session  string
	state    sessionState
	stateErr bool
	dirty    bool
	stdout   string
	stderr   string
	// unstored is the stdout to use when the events cannot be kept
	// (abi.HandleResponse.Unstored); nil when stdout names no new event.
	unstored *abi.Unstored
	effects  []abi.Effect
	tallies  []abi.Effect
	// other holds state documents besides the session's, as written.
	other map[string]string
	tools map[string]string
	// json expands the JSON a decision reads, lazily and once.
	json jsonfast.Expander
	// decoded is the last JSON value decode decoded, by its raw bytes.
	decoded struct {
		ptr *byte
		n   int
		v   any
		err error
	}
	// red is the redactor for the tokens redKnown and the environment's
	// secrets (envSecrets, read once): a decision redacts several times,
	// and building one again each time cost a third of a proxy response's
	// decision. A token captured meanwhile changes known, and so makes a
	// new one.
	red      *redact.Redactor
	redKnown []string
	envSec   []string
	envOwn   []string
	envRead  bool
}

// setState writes a state document other than the session's.
func (d *decision) setState(key, value string) {
	if d.other == nil {
		d.other = map[string]string{}
	}
	d.other[key] = value
}

// toolServers is Cursor's learned tool-to-server map (empty when state
// could not be read: then nothing is injected for an unnamed server).
// serverNames are the servers the user's config names, sorted: the
// dialects whose tool names join server and tool with a separator a
// server name may hold too (Copilot CLI, Auggie, OpenCode) match them
// first.
func (d *decision) serverNames() []string {
	return slices.Sorted(maps.Keys(d.req.Config.Servers))
}

func (d *decision) toolServers() map[string]string {
	if d.tools == nil {
		d.tools = map[string]string{}
		if !d.stateErr {
			json.Unmarshal([]byte(d.req.State[cursorToolsKey]), &d.tools)
		}
		if d.tools == nil {
			d.tools = map[string]string{}
		}
	}
	return d.tools
}

func (d *decision) loadState() {
	if d.req.StateError != "" {
		d.stateErr = true
		return
	}
	s, err := decodeState(d.req.State[stateKey(d.session)])
	if err != nil {
		d.stateErr = true
		return
	}
	d.state = s
}

// tally counts one of name. Every tally but a captured token and an
// excluded call counts something the model was given, and so holds only
// if the answer reached the harness (abi.Effect.IfDelivered).
func (d *decision) tally(name string) { d.tallyN(name, 1) }

// tallyN counts n of name (see tally).
func (d *decision) tallyN(name string, n int) {
	// The session id as stored with the events: redacted (storeEvent).
	session, _ := d.redactor().String(d.session)
	d.tallies = append(d.tallies, abi.Effect{Op: abi.OpTally, Session: session, Name: name, Count: n,
		IfDelivered: name != abi.TallyCapture && name != abi.TallyExcluded && name != abi.TallyRefetchMade})
}

func (d *decision) redactor() *redact.Redactor {
	known := d.state.known()
	if d.red != nil && slices.Equal(known, d.redKnown) {
		return d.red
	}
	if !d.envRead {
		d.envOwn, d.envSec = envSecrets(d.req.Environ, d.session)
		d.envRead = true
	}
	// The relay's tokens and the values the host names as ctxhook's own
	// go by any run of MinKnownRun bytes; other variables' values whole.
	d.red, d.redKnown = redact.NewOwn(slices.Concat(known, d.envOwn), d.envSec...), known
	return d.red
}

// envSecrets are the values of the sensitive variables in environ. PWD
// and OLDPWD end in "pwd" but hold the working directory; a variable
// holding the agent's own session id (Claude Code sets one for its hooks)
// is the key every event is stored under, not a secret: redacted, it made
// every session "[REDACTED]". own are the values the host hands over as
// ctxhook's own (ownPrefix): the hook secret, relay tokens of every
// session, the store's password.
func envSecrets(environ []string, session string) (own, other []string) {
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || len(v) < redact.MinKnownLen || !redact.SensitiveName(k) || k == "PWD" || k == "OLDPWD" || v == session {
			continue
		}
		if strings.HasPrefix(k, ownPrefix) {
			own = append(own, v)
		} else {
			other = append(other, v)
		}
	}
	return own, other
}

// ownPrefix starts the names of the environment entries that hold
// ctxhook's own secrets (host/internal/ownsecrets writes them).
const ownPrefix = "CTXHOOK_OWN_"

// storeTool records a tool call with its full response, redacted with
// every token this session's relay knows. readable, when set, is the
// response rebuilt in MCP result shape by the harness's dialect (Gemini
// CLI's llmContent): the text is taken from it. Otherwise the text is
// rendered from the response while it is redacted (redactResponse).
func (d *decision) storeTool(ev *abi.Event, args, response, readable json.RawMessage) {
	if d.excluded(ev) {
		d.storeExcluded(ev, len(response))
		return
	}
	r := d.redactor()
	a, n1 := r.String(compact(args))
	var body, text string
	var n2 int
	if readable == nil {
		body, text, ev.ResponseForm, n2 = d.redactResponse(r, response)
	} else {
		body, n2 = r.String(rawString(response))
		text, _ = r.String(d.readableText(readable))
	}
	ev.Args = a
	ev.ResponseBytes = len(response)
	ev.Redactions = n1 + n2
	var cut bool
	if text != "" {
		ev.Text, cut = capBytes(text, d.maxBytes())
	}
	ev.Response, ev.Truncated = capBytes(body, d.maxBytes())
	ev.Truncated = ev.Truncated || cut
	d.storeEvent(ev)
}

// storeFile records a tool call whose response the harness saved to a
// file (Claude Code's overflow): the file's content is the response, as
// plain text or, with isJSON, the content blocks' JSON array.
func (d *decision) storeFile(ev *abi.Event, args json.RawMessage, content string, isJSON bool) {
	if isJSON {
		d.storeTool(ev, args, rawBytes(content), nil)
		return
	}
	if d.excluded(ev) {
		d.storeExcluded(ev, len(content))
		return
	}
	r := d.redactor()
	a, n1 := r.String(compact(args))
	body, n2 := r.String(content)
	ev.Args, ev.ResponseBytes, ev.Redactions = a, len(content), n1+n2
	ev.Response, ev.Truncated = capBytes(body, d.maxBytes())
	d.storeEvent(ev)
}

// keyed is what tells this decision's event keys from another's of the
// same call: the request's name, else its time (abi.HandleRequest).
func (d *decision) keyed() string {
	if d.req.RequestID != "" {
		return "request " + d.req.RequestID
	}
	return strconv.FormatInt(d.req.NowMS, 10)
}

// file returns the content of a file the host read for this request, or
// why it has none.
func (d *decision) file(path string) (string, error) {
	for _, f := range d.req.Files {
		if f.Path == path {
			if f.Error != "" {
				return "", errors.New(f.Error)
			}
			return f.Content, nil
		}
	}
	return "", errors.New("not read by the host")
}

// record stores a non-tool event (a prompt, a session boundary).
func (d *decision) record(ev *abi.Event, body string) {
	if d.excluded(ev) {
		d.storeExcluded(ev, len(body))
		return
	}
	red, n := d.redactor().String(body)
	ev.ResponseBytes = len(body)
	ev.Redactions = n
	ev.Response, ev.Truncated = capBytes(red, d.maxBytes())
	d.storeEvent(ev)
}

// storeEvent adds the effect that stores ev, its short fields redacted
// first: they come from the payload as they are, and a cwd, a session id
// or a tool name can hold a token as well as any body (a ghp_ token in a
// directory's name).
func (d *decision) storeEvent(ev *abi.Event) {
	r := d.redactor()
	for _, p := range []*string{&ev.Session, &ev.Cwd, &ev.Tool, &ev.Server, &ev.ToolUseID} {
		if *p != "" {
			var n int
			*p, n = r.String(*p)
			ev.Redactions += n
		}
	}
	d.effects = append(d.effects, abi.Effect{Op: abi.OpStoreEvent, Event: ev})
}

func (d *decision) newEvent(event, category, cwd string) *abi.Event {
	return &abi.Event{TimeMS: d.req.NowMS, Session: d.session, Harness: d.req.Harness,
		HookEvent: event, Category: category, Cwd: cwd}
}

func (d *decision) maxBytes() int {
	if m := d.req.Config.Capture.MaxEventBytes; m != 0 {
		return m
	}
	return abi.DefaultMaxEventBytes
}

func (d *decision) response() abi.HandleResponse {
	var effects []abi.Effect
	// State first: a captured token must survive even if the store fails.
	if d.dirty {
		effects = append(effects, abi.Effect{Op: abi.OpSetState, Key: stateKey(d.session), Value: d.state.encode()})
	}
	for _, k := range slices.Sorted(maps.Keys(d.other)) {
		effects = append(effects, abi.Effect{Op: abi.OpSetState, Key: k, Value: d.other[k]})
	}
	effects = append(effects, d.effects...)
	effects = append(effects, d.tallies...)
	if effects == nil {
		effects = []abi.Effect{}
	}
	return abi.HandleResponse{Stdout: d.stdout, Stderr: d.stderr, ExitCode: 0, Effects: effects, Unstored: d.unstored}
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

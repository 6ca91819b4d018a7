// Package demo replays a recorded Claude Code session through ctxhook's
// real hook engine (the embedded plugin.wasm, a real SQLite store, real
// state files) and reports what ctxhook did: tokens relayed, events
// captured, nudges fired, and a sample search.
//
// The bundled session was recorded from Claude Code 2.1.330 driving two MCP
// servers (a workflow server that rotates a ~480-character session token on
// every call, and a ticket server whose responses carry planted secrets);
// e2e's TestRecordDemoSession records it again (CTXHOOK_RECORD names the
// file).
package demo

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxhook/ctxhook/host/internal/engine"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

//go:embed recorded/claude-code-2.1.330-workflow.jsonl
var session []byte

// Config is the ctxhook config the demo runs with: the relay on for the
// workflow server only.
const Config = "[servers.workflow]\nrelay = true\n"

// Record is one line of a recorded session: the hook event and the exact
// payload Claude Code sent on stdin.
type Record struct {
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
}

// Session returns the bundled recording.
func Session() ([]Record, error) { return Parse(session) }

// Parse reads a recording.
func Parse(b []byte) ([]Record, error) {
	var out []Record
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("demo: recording line %d: %w", n, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// Report is what a replay found.
type Report struct {
	ToolCalls      int
	MCPCalls       map[string]int // per server
	RelayNeeded    int            // calls the model sent without the token
	Relayed        int            // of those, injected by ctxhook
	RelayMatched   int            // injected token equal to what the server accepted
	TokensCaptured int
	NudgeCalls     []int // external MCP call numbers that got the nudge
	OneShotNudges  int
	// MCPBytes is the size of every external MCP response; ContextBytes
	// what of it reached the model once ctxhook shaped the large ones.
	MCPBytes, ContextBytes int64
	Shaped                 int
	Events                 int64
	BytesCaptured          int64
	Redactions             int64
	Warnings               []string
	SampleQuery            string
	SampleHits             []store.Hit
	SampleTotal            int // how many events the sample query matches
	// Listed is how many MCP calls the progress showed (those where ctxhook
	// did more than record); the rest were recorded and not listed.
	Listed int
	// Secret is one stored line with a secret redacted, beside the line the
	// server sent.
	Secret RedactedLine
	DB     string
}

// RedactedLine is one line of a response as the server sent it and as
// the store holds it.
type RedactedLine struct {
	Event      int64
	Sent, Kept string
}

// Replay runs records through an engine rooted at p.
func Replay(ctx context.Context, p paths.Paths, records []Record, getenv func(string) string, progress io.Writer) (*Report, error) {
	if err := writeConfig(p); err != nil {
		return nil, err
	}
	eng, err := engine.NewEngine(ctx, p, getenv, engine.Store)
	if err != nil {
		return nil, err
	}
	defer eng.Close(ctx)
	r := newReplay(records, progress)
	r.rep.DB = p.DB()
	for _, rec := range records {
		res, err := eng.Do(ctx, "", abi.HarnessClaudeCode, rec.Event, rec.Payload)
		if err != nil {
			return nil, fmt.Errorf("demo: %s: %w", rec.Event, err)
		}
		r.record(rec, &res)
	}
	return r.rep, r.finish(p)
}

// writeConfig gives the demo's home its config, unless it has one.
func writeConfig(p paths.Paths) error {
	if err := paths.EnsureDir(filepath.Dir(p.Config)); err != nil {
		return err
	}
	if _, err := os.Stat(p.Config); os.IsNotExist(err) {
		return os.WriteFile(p.Config, []byte(Config), 0o600)
	}
	return nil
}

// replay is a replay under way: the report, and what it compares with.
type replay struct {
	rep      *Report
	records  []Record
	progress io.Writer
	// accepted is what the server accepted, per tool_use_id: the recorded
	// PostToolUse tool_input (Claude Code reports the input the tool
	// really ran with).
	accepted map[string]string
	// relayStatus is what PreToolUse did about the token, per tool_use_id.
	relayStatus map[string]string
	width       int // the progress's label column: as wide as the longest
	mcpCall     int
}

// call is the part of a recorded payload the report reads.
type call struct {
	ToolName  string         `json:"tool_name"`
	ToolUseID string         `json:"tool_use_id"`
	ToolInput map[string]any `json:"tool_input"`
}

func newReplay(records []Record, progress io.Writer) *replay {
	r := &replay{rep: &Report{MCPCalls: map[string]int{}}, records: records, progress: progress,
		accepted: map[string]string{}, relayStatus: map[string]string{}}
	for _, rec := range records {
		var pl struct {
			ToolName  string          `json:"tool_name"`
			ToolUseID string          `json:"tool_use_id"`
			ToolInput json.RawMessage `json:"tool_input"`
		}
		json.Unmarshal(rec.Payload, &pl)
		if rec.Event == "PostToolUse" {
			r.accepted[pl.ToolUseID] = canonical(pl.ToolInput)
		}
		if server, tool := splitMCP(pl.ToolName); server != "" {
			var in map[string]any
			json.Unmarshal(pl.ToolInput, &in)
			r.width = max(r.width, len(server+"/"+tool+" "+shortArgs(in)))
		}
	}
	return r
}

// record adds one hook's answer to the report.
func (r *replay) record(rec Record, res *engine.Result) {
	r.rep.Warnings = append(r.rep.Warnings, res.Warnings...)
	var pl call
	json.Unmarshal(rec.Payload, &pl)
	for _, e := range res.Response.Effects {
		if e.Op == abi.OpTally && e.Name == abi.TallyCapture {
			r.rep.TokensCaptured++
		}
	}
	switch rec.Event {
	case "PreToolUse":
		r.pre(pl, res)
	case "PostToolUse":
		r.post(pl, res)
	}
}

// pre notes whether the token was relayed, and whether it is what the
// server then accepted.
func (r *replay) pre(pl call, res *engine.Result) {
	server, tool := splitMCP(pl.ToolName)
	if server == "" {
		return
	}
	_, sent := pl.ToolInput["session_token"]
	needs := server == "workflow" && tool != "start_session" && !sent
	if needs {
		r.rep.RelayNeeded++
	}
	var out struct {
		HookSpecificOutput struct {
			UpdatedInput json.RawMessage `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	json.Unmarshal([]byte(res.Answer), &out)
	status := ""
	switch {
	case len(out.HookSpecificOutput.UpdatedInput) > 0 && canonical(out.HookSpecificOutput.UpdatedInput) == r.accepted[pl.ToolUseID]:
		r.rep.Relayed++
		r.rep.RelayMatched++
		status = "token relayed, matches what the server accepted"
	case len(out.HookSpecificOutput.UpdatedInput) > 0:
		r.rep.Relayed++
		status = "token relayed, DIFFERS from what the server accepted"
	case needs:
		status = "NO TOKEN RELAYED"
	}
	r.relayStatus[pl.ToolUseID] = status
}

// post counts an answered call, what shaping kept out of the context, and
// the nudge, and shows the call when ctxhook did more than record it.
func (r *replay) post(pl call, res *engine.Result) {
	r.rep.ToolCalls++
	server, tool := splitMCP(pl.ToolName)
	if server == "" {
		return
	}
	r.rep.MCPCalls[server]++
	r.mcpCall++
	for _, e := range res.Response.Effects {
		if e.Op != abi.OpStoreEvent || e.Event == nil {
			continue
		}
		r.rep.MCPBytes += int64(e.Event.ResponseBytes)
		if e.Event.ContextBytes > 0 {
			r.rep.Shaped++
			r.rep.ContextBytes += int64(e.Event.ContextBytes)
		} else {
			r.rep.ContextBytes += int64(e.Event.ResponseBytes)
		}
	}
	did := []string{}
	if st := r.relayStatus[pl.ToolUseID]; st != "" {
		did = append(did, st)
	}
	if strings.Contains(res.Answer, "additionalContext") {
		r.rep.NudgeCalls = append(r.rep.NudgeCalls, r.mcpCall)
		did = append(did, fmt.Sprintf("nudge added (MCP call %d)", r.mcpCall))
	}
	if len(did) == 0 {
		return
	}
	r.rep.Listed++
	if r.progress != nil {
		fmt.Fprintf(r.progress, "  %-*s %s\n", r.width, server+"/"+tool+" "+shortArgs(pl.ToolInput), strings.Join(did, "; "))
	}
}

// finish reads the store the replay filled: its figures, one redaction,
// and a sample search.
func (r *replay) finish(p paths.Paths) error {
	st, err := store.Open(p.DB(), store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	stats, err := st.Stats("")
	if err != nil {
		return err
	}
	rep := r.rep
	rep.Events, rep.BytesCaptured, rep.Redactions = stats.Events, stats.BytesCaptured, stats.Redactions
	rep.Secret = redactedLine(st, r.records)
	rep.SampleQuery = "CVX-5909"
	rep.SampleHits, rep.SampleTotal, err = st.SearchTotal(store.ParseQuery(rep.SampleQuery), store.SearchOptions{Limit: 3})
	return err
}

func splitMCP(name string) (server, tool string) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", ""
	}
	server, tool, _ = strings.Cut(rest, "__")
	return server, tool
}

func shortArgs(in map[string]any) string {
	var parts []string
	for _, k := range []string{"n", "id"} {
		if v, ok := in[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%v", k, v))
		}
	}
	return strings.Join(parts, " ")
}

func canonical(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

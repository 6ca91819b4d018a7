package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/e2e/internal/fakemodel"
	"github.com/ctxhook/ctxhook/internal/secretcorpus"
)

// Planted in every ticket by e2e/testmcp; none may reach ctxhook's files.
var planted = []string{"AKIAPLANTEDSECRET123", "planted-db-password-7f3k"}

const nudgeMarker = "ctxhook: MCP responses in this session are stored and indexed"

// claudeRun is one Claude Code run with ctxhook installed.
type claudeRun struct {
	*clientRun
	CtxhookBin     string
	Stdout, Stderr string
	HookRecord     string // when set, hooks append payloads here
	// Claude and Flags run Claude Code again the same way (a resume).
	Claude string
	Flags  []string
}

func (r *claudeRun) env() []string {
	return isolatedEnv(r.Home,
		"ANTHROPIC_BASE_URL="+r.Model.URL, "ANTHROPIC_API_KEY=sk-ant-fake-offline-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1", "DISABLE_GROWTHBOOK=1", "DISABLE_UPDATES=1",
		"CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY=1", "DISABLE_INSTALLATION_CHECKS=1")
}

// claudeOpts vary a Claude Code run.
type claudeOpts struct {
	script []fakemodel.Step
	prompt string
	record string // when set, hook payloads are recorded here
	// config is ctxhook's config.toml (default: relay on for "workflow").
	config string
	// viaProxy runs the workflow server behind `ctxhook proxy`, with its
	// token in result _meta only.
	viaProxy bool
	// ownMCP also gives Claude Code ctxhook's own MCP server, with the
	// entry `ctxhook install` wrote into ~/.claude.json.
	ownMCP bool
	// large makes the MCP test servers answer with 12-20 KB responses.
	large bool
	// ticketsViaProxy runs the tickets server behind `ctxhook proxy`.
	ticketsViaProxy bool
	// modern has the workflow server speak MCP 2026-07-28 too.
	modern bool
	// tokens is the workflow server's -tokens: "process" (its tokens die
	// with it) or "signed" (they survive a restart); "" the strict server.
	tokens string
	// hookType is install's --hook-type ("" for its default, command
	// hooks); mcp_tool gives Claude Code ctxhook's MCP server too.
	hookType string
	// beforeRun, when set, runs after install and before Claude Code.
	beforeRun func(r *claudeRun)
}

// runClaude installs ctxhook with `ctxhook install claude-code` into a fresh
// HOME, enables the relay for the workflow server, and runs Claude Code
// with the script.
func runClaude(t *testing.T, script []fakemodel.Step, prompt string, record string) *claudeRun {
	t.Helper()
	return runClaudeWith(t, claudeOpts{script: script, prompt: prompt, record: record})
}

func runClaudeWith(t *testing.T, o claudeOpts) *claudeRun {
	t.Helper()
	script, prompt, record := o.script, o.prompt, o.record
	if o.config == "" {
		o.config = "[servers.workflow]\nrelay = true\n"
	}
	claude := npmInstall(t, "@anthropic-ai/claude-code", ClaudeCodeVersion, "claude")
	ctxhook, testmcp := binaries(t)
	r := &claudeRun{clientRun: newClientRun(t, script), CtxhookBin: ctxhook, HookRecord: record}
	tmp := r.Tmp

	// Wire ctxhook in exactly as a user would. make e2e runs the Claude
	// Code tests a second time with CTXHOOK_E2E_HOOK_TYPE=mcp_tool.
	if o.hookType == "" {
		o.hookType = os.Getenv("CTXHOOK_E2E_HOOK_TYPE")
	}
	args := []string{"install", "claude-code"}
	if o.hookType != "" {
		args = append(args, "--hook-type", o.hookType)
		o.ownMCP = o.ownMCP || o.hookType == "mcp_tool"
	}
	out, errs, err := run(t, time.Minute, r.env(), r.Project, nil, ctxhook, args...)
	if err != nil {
		t.Fatalf("ctxhook install: %v\n%s%s", err, out, errs)
	}
	if o.hookType == "mcp_tool" {
		// The tool hooks call ctxhook's MCP server; no command runs for them.
		b, _ := os.ReadFile(filepath.Join(r.Home, ".claude", "settings.json"))
		var st struct {
			Hooks map[string][]struct {
				Hooks []struct{ Type, Command string }
			}
		}
		json.Unmarshal(b, &st)
		for _, ev := range []string{"PreToolUse", "PostToolUse", "PostToolUseFailure"} {
			for _, g := range st.Hooks[ev] {
				for _, h := range g.Hooks {
					if h.Type != "mcp_tool" {
						t.Fatalf("install --hook-type mcp_tool wrote a %s hook of type %q: %s", ev, h.Type, b)
					}
				}
			}
			if len(st.Hooks[ev]) == 0 {
				t.Fatalf("install --hook-type mcp_tool wrote no %s hook: %s", ev, b)
			}
		}
	}
	cfg := filepath.Join(r.Home, ".config", "ctxhook", "config.toml")
	if err := os.WriteFile(cfg, []byte(o.config), 0o600); err != nil {
		t.Fatal(err)
	}
	if record != "" {
		wrapHooksForRecording(t, r)
	}
	sizeArgs := []string{}
	if o.large {
		sizeArgs = []string{"-large"}
	}
	workflow := map[string]any{"type": "stdio", "command": testmcp, "args": append([]string{"-mode", "workflow"}, sizeArgs...),
		"env": map[string]string{"TESTMCP_LOG": r.MCPLog}}
	if o.viaProxy {
		workflow["command"] = ctxhook
		workflow["args"] = []string{"proxy", "--name", "workflow", "--", testmcp, "-mode", "workflow", "-meta-only"}
	}
	if o.modern {
		workflow["args"] = append(workflow["args"].([]string), "-modern")
	}
	if o.tokens != "" {
		workflow["args"] = append(workflow["args"].([]string), "-tokens", o.tokens)
	}
	tickets := map[string]any{"type": "stdio", "command": testmcp, "args": append([]string{"-mode", "tickets"}, sizeArgs...),
		"env": map[string]string{"TESTMCP_LOG": r.MCPLog}}
	if o.ticketsViaProxy {
		tickets["command"] = ctxhook
		tickets["args"] = append([]string{"proxy", "--name", "tickets", "--", testmcp, "-mode", "tickets"}, sizeArgs...)
	}
	mcp := map[string]any{"mcpServers": map[string]any{"workflow": workflow, "tickets": tickets}}
	allowed := "mcp__workflow__start_session,mcp__workflow__step,mcp__tickets__get_ticket,mcp__tickets__export_log,mcp__tickets__get_secret"
	if o.ownMCP {
		b, err := os.ReadFile(filepath.Join(r.Home, ".claude.json"))
		if err != nil {
			t.Fatal(err)
		}
		var installed struct {
			MCPServers map[string]any `json:"mcpServers"`
		}
		json.Unmarshal(b, &installed)
		if installed.MCPServers["ctxhook"] == nil {
			t.Fatalf("ctxhook install wrote no ctxhook MCP server into ~/.claude.json: %s", b)
		}
		mcp["mcpServers"].(map[string]any)["ctxhook"] = installed.MCPServers["ctxhook"]
		allowed += ",mcp__ctxhook__search,mcp__ctxhook__get_event,mcp__ctxhook__get_context,mcp__ctxhook__stats"
	}
	b, _ := json.Marshal(mcp)
	mcpPath := filepath.Join(tmp, "mcp.json")
	os.WriteFile(mcpPath, b, 0o644)

	if o.beforeRun != nil {
		o.beforeRun(r)
	}
	r.Claude, r.Flags = claude, []string{"--output-format", "json", "--model", "claude-sonnet-4-5",
		"--mcp-config", mcpPath, "--strict-mcp-config", "--allowedTools", allowed}
	r.Stdout, r.Stderr, err = run(t, 4*time.Minute, r.env(), r.Project, []byte{}, claude, append([]string{"-p", prompt}, r.Flags...)...)
	if err != nil {
		t.Fatalf("claude: %v\nstdout: %s\nstderr: %s", err, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "FINAL_ANSWER") {
		t.Fatalf("claude did not finish the script:\n%s\n%s", r.Stdout, r.Stderr)
	}
	keepTranscripts(t, filepath.Join(r.Home, ".claude", "projects"))
	return r
}

// wrapHooksForRecording makes each installed hook command append its
// payload to the record file before running ctxhook, unchanged.
func wrapHooksForRecording(t *testing.T, r *claudeRun) {
	t.Helper()
	settings := filepath.Join(r.Home, ".claude", "settings.json")
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(r.Home, "record-hook.sh")
	script := "#!/bin/sh\nev=\"$4\"\npayload=$(cat)\nprintf '%s' \"$payload\" | jq -c --arg ev \"$ev\" '{event:$ev,payload:.}' >> " +
		r.HookRecord + "\nprintf '%s' \"$payload\" | \"$@\"\n"
	os.WriteFile(wrapper, []byte(script), 0o755)
	s := strings.ReplaceAll(string(b), `"command": "`+r.CtxhookBin, `"command": "`+wrapper+" "+r.CtxhookBin)
	os.WriteFile(settings, []byte(s), 0o644)
}

func workflowScript(steps int, tickets map[int]string) []fakemodel.Step {
	script := []fakemodel.Step{{Tool: "mcp__workflow__start_session", Input: map[string]any{"workflow": "deploy-payments"}}}
	for n := 1; n <= steps; n++ {
		script = append(script, fakemodel.Step{Tool: "mcp__workflow__step", Input: map[string]any{"n": n}})
		if id, ok := tickets[n]; ok {
			script = append(script, fakemodel.Step{Tool: "mcp__tickets__get_ticket", Input: map[string]any{"id": id}})
		}
	}
	return script
}

func TestClaudeCode(t *testing.T) {
	requireE2E(t)
	testClaudeCode(t, "")
}

// TestClaudeCodeMCPToolHooks: TestClaudeCode with the tool hooks
// installed as "mcp_tool" hooks (`install claude-code --hook-type
// mcp_tool`): Claude Code calls ctxhook's MCP server for each, and relay,
// capture, shaping and nudges hold as with commands.
func TestClaudeCodeMCPToolHooks(t *testing.T) {
	requireE2E(t)
	testClaudeCode(t, "mcp_tool")
}

func testClaudeCode(t *testing.T, hookType string) {
	script := workflowScript(3, map[int]string{1: "CVX-5909"})
	r := runClaudeWith(t, claudeOpts{script: script, prompt: "Run the deploy-payments workflow and check ticket CVX-5909.", large: true, hookType: hookType})
	if hookType == "mcp_tool" {
		// The model is offered ctxhook's tools (listed, or named as
		// deferred behind ToolSearch), never the hooks' one.
		var search, hook bool
		for _, req := range r.Model.Requests() {
			search = search || strings.Contains(string(req), "mcp__ctxhook__search")
			hook = hook || strings.Contains(string(req), "mcp__ctxhook__hook")
		}
		if !search || hook {
			t.Errorf("tools offered to the model: ctxhook's search %v (want true), the hook tool %v (want false)", search, hook)
		}
		defer checkHookSecretKept(t, r)
	}

	// 1. The relay: every step reached the server with the token the
	// previous call issued, though the model never sent one.
	for _, st := range script {
		if _, sent := st.Input["session_token"]; sent {
			t.Fatalf("script sends the token itself; the test would prove nothing")
		}
	}
	steps := checkRelayChain(t, readToolCalls(t, r.MCPLog), len(script))
	if steps != 3 {
		t.Fatalf("%d steps reached the server", steps)
	}
	// The model's own tool_use inputs never carried the token.
	modelSteps := 0
	for _, req := range r.Model.Requests() {
		var body struct {
			Messages []struct {
				Role    string            `json:"role"`
				Content []json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(req, &body)
		for _, m := range body.Messages {
			for _, raw := range m.Content {
				var b struct {
					Type  string         `json:"type"`
					Name  string         `json:"name"`
					Input map[string]any `json:"input"`
				}
				json.Unmarshal(raw, &b)
				if m.Role == "assistant" && b.Type == "tool_use" && b.Name == "mcp__workflow__step" {
					modelSteps++
					if _, sent := b.Input["session_token"]; sent {
						t.Errorf("the model's own call carried a token: %v", b.Input)
					}
				}
			}
		}
	}
	if modelSteps == 0 {
		t.Errorf("no model tool_use for step seen in the requests")
	}

	// 2. Search finds the response right after the run; the nudge reached
	// the model; the planted secrets are in no file ctxhook wrote.
	checkCaptured(t, r.env(), r.Project, r.CtxhookBin, r.Home, r.Model, "CVX-5909", "mcp__tickets__get_ticket")

	// 3. The responses (12-20 KB) were shaped: the model got heads and
	// pointers, and the facts past the heads are still found.
	checkShaped(t, r.Model)
	if out, _, _ := run(t, time.Minute, r.env(), r.Project, nil, r.CtxhookBin, "search", "--json", "FACT CVX-5909 release"); !strings.Contains(out, "mcp__tickets__get_ticket") {
		t.Errorf("the ticket's fact is not found: %s", out)
	}

	// 4. The Stop hook indexed the session's transcript: the turn, tool
	// results included, is searchable as a transcript chunk.
	if out, _, _ := run(t, time.Minute, r.env(), r.Project, nil, r.CtxhookBin, "search", "--json", "deploy-payments workflow"); !strings.Contains(out, `"kind": "chunk"`) {
		t.Errorf("the transcript was not indexed: %s", out)
	}
}

// checkHookSecretKept: the secret the mcp_tool hooks carry (they were
// answered, so it reached ctxhook mcp) is in no file ctxhook wrote but
// its own, in no request to the model and in none of Claude Code's
// transcripts, which ctxhook indexes.
func checkHookSecretKept(t *testing.T, r *claudeRun) {
	t.Helper()
	secretFile := filepath.Join(r.Home, ".local", "state", "ctxhook", "hook-secret")
	b, err := os.ReadFile(secretFile)
	secret := strings.TrimSpace(string(b))
	if err != nil || len(secret) != 64 {
		t.Fatalf("install made no hook secret: %v %q", err, b)
	}
	files := append(ctxhookFiles(t, r.Home), filesUnder(t, filepath.Join(r.Home, ".claude", "projects"))...)
	for f, b := range readFiles(t, files) {
		if f != secretFile && strings.Contains(string(b), secret) {
			t.Errorf("the hook secret is in %s", f)
		}
	}
	for _, req := range r.Model.Requests() {
		if strings.Contains(string(req), secret) {
			t.Errorf("the hook secret reached the model")
			break
		}
	}
}

// TestRecordDemoSession re-records the session `ctxhook demo` replays:
// CTXHOOK_RECORD=host/internal/demo/recorded/claude-code-2.1.330-workflow.jsonl.
func TestRecordDemoSession(t *testing.T) {
	requireE2E(t)
	out := os.Getenv("CTXHOOK_RECORD")
	if out == "" {
		t.Skip("set CTXHOOK_RECORD=<file> to re-record the demo session")
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(repoRoot(t), out)
	}
	os.Remove(out)
	tickets := map[int]string{1: "CVX-5909", 3: "CVX-5911", 4: "CVX-5909", 6: "OPS-118", 8: "CVX-5912", 9: "CVX-5909",
		11: "PAY-2210", 13: "OPS-118", 14: "CVX-5913", 16: "PAY-2210", 18: "CVX-5914", 19: "CVX-5909"}
	script := workflowScript(20, tickets)
	r := runClaudeWith(t, claudeOpts{script: script, prompt: "Run the deploy-payments workflow to the end; check the tickets it mentions.",
		record: out, large: true})
	for _, c := range readToolCalls(t, r.MCPLog) {
		if c.Result.IsError {
			t.Fatalf("a call failed during recording: %s %+v", c.Name, c.Result.Content)
		}
	}
	b, _ := os.ReadFile(out)
	t.Logf("recorded %d hook events (%d bytes) for %d scripted calls", strings.Count(string(b), "\n"), len(b), len(script))
}

// TestClaudeCodeProxy: a 20-step workflow whose server issues a new
// ~480-character token in result _meta only (which Claude Code's hooks never
// see) and rejects any call with a wrong one. The workflow server runs
// behind `ctxhook proxy`; the hooks are installed too and must not record
// its calls a second time.
func TestClaudeCodeProxy(t *testing.T) {
	requireE2E(t)
	testClaudeCodeProxy(t, "")
}

// TestClaudeCodeProxyMCPToolHooks: TestClaudeCodeProxy with "mcp_tool"
// hooks: the 20-step workflow through the proxy, each call recorded once.
func TestClaudeCodeProxyMCPToolHooks(t *testing.T) {
	requireE2E(t)
	testClaudeCodeProxy(t, "mcp_tool")
}

// TestClaudeCodeProxyModern: TestClaudeCodeProxy with a workflow server
// that speaks MCP 2026-07-28: Claude Code 2.1.330 probes it with
// server/discover through the proxy, never initializes, and names the
// revision in each request's _meta; the relay holds for all 20 steps.
func TestClaudeCodeProxyModern(t *testing.T) {
	requireE2E(t)
	r := testClaudeCodeProxyWith(t, "", true)
	var discovered, initialized, modernCalls, calls int
	forEachLogged(t, r.MCPLog, func(dir, server string, msg json.RawMessage) {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		if dir != "in" || server != "workflow" || json.Unmarshal(msg, &m) != nil {
			return
		}
		switch m.Method {
		case "server/discover":
			discovered++
		case "initialize":
			initialized++
		case "tools/call":
			calls++
			if m.Params.Meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28" {
				modernCalls++
			}
		}
	})
	if discovered == 0 || initialized != 0 || calls == 0 || modernCalls != calls {
		t.Errorf("the workflow server saw %d server/discover, %d initialize, %d of %d tools/call under 2026-07-28: want the new revision only",
			discovered, initialized, modernCalls, calls)
	}
}

func testClaudeCodeProxy(t *testing.T, hookType string) { testClaudeCodeProxyWith(t, hookType, false) }

func testClaudeCodeProxyWith(t *testing.T, hookType string, modern bool) *claudeRun {
	script := workflowScript(20, nil)
	r := runClaudeWith(t, claudeOpts{script: script, prompt: "Run the deploy-payments workflow to the end.",
		config: "[servers.workflow]\nrelay = true\nproxy = true\n", viaProxy: true, hookType: hookType, modern: modern})

	calls := readToolCalls(t, r.MCPLog)
	checkRelayChain(t, calls, 21)
	for _, c := range calls {
		for _, block := range c.Result.Content {
			if strings.Contains(block.Text, "wfs_") {
				t.Fatalf("the server put the token in a text block: the test would not prove _meta capture")
			}
		}
	}
	// The model never saw a token, and never sent one.
	for _, req := range r.Model.Requests() {
		if strings.Contains(string(req), "wfs_") {
			t.Fatalf("a request to the model contains a session token")
		}
	}
	// Claude Code keeps result _meta in its transcript (mcpMeta): the proxy
	// removed the token before Claude Code ever had it.
	transcripts, _ := filepath.Glob(filepath.Join(r.Home, ".claude", "projects", "*", "*.jsonl"))
	if len(transcripts) == 0 {
		t.Fatalf("no Claude Code transcript under %s", r.Home)
	}
	sawMeta := false
	for _, tr := range transcripts {
		b, _ := os.ReadFile(tr)
		if strings.Contains(string(b), "wfs_") {
			t.Errorf("transcript %s holds a session token", tr)
		}
		sawMeta = sawMeta || strings.Contains(string(b), "WF-STEP-020")
	}
	if !sawMeta {
		t.Errorf("the transcripts hold no tool result: the check above proved nothing")
	}
	// Every result is searchable, recorded once (by the proxy, not the hooks).
	for _, n := range []int{1, 7, 20} {
		out, errs, err := searchFor(t, r.env(), r.Project, r.CtxhookBin, `"tool": "mcp__workflow__step"`, "--server", "workflow", fmt.Sprintf("WF-STEP-%03d", n))
		if err != nil {
			t.Fatalf("search: %v %s", err, errs)
		}
		var res struct{ Results []struct{ Tool string } }
		json.Unmarshal([]byte(out), &res)
		if hits := res.Results; len(hits) != 1 || hits[0].Tool != "mcp__workflow__step" {
			t.Errorf("search WF-STEP-%03d: %s", n, out)
		}
	}
	out, _, _ := run(t, time.Minute, r.env(), r.Project, nil, r.CtxhookBin, "stats", "--all", "--json")
	var st struct {
		ByServer map[string]int `json:"by_server"`
	}
	json.Unmarshal([]byte(out), &st)
	if st.ByServer["workflow"] != 21 {
		t.Errorf("workflow events stored: %d, want 21 (one per call): %s", st.ByServer["workflow"], out)
	}
	return r
}

// TestClaudeCodeBigResult: Claude Code saves a 10 MiB MCP result to a
// file and hands the hook and the model a stub naming it; the hook
// stores the file's content, so the result is searchable to its last
// line, its planted key redacted.
func TestClaudeCodeBigResult(t *testing.T) {
	requireE2E(t)
	r := runClaudeWith(t, claudeOpts{script: bigScript(), prompt: "Export the event log of ticket CVX-5909."})
	stub := false
	for _, req := range r.Model.Requests() {
		stub = stub || strings.Contains(string(req), "exceeds maximum allowed tokens. Output has been saved to")
		if strings.Contains(string(req), "ZQLASTMARK") {
			t.Errorf("the model got the log's last line: Claude Code did not replace the result with its file stub, and the test proves nothing")
		}
	}
	if !stub {
		t.Errorf("no request to the model carried Claude Code's overflow stub")
	}
	checkBigSearchable(t, r.env(), r.Project, r.CtxhookBin, r.Home)
}

// TestClaudeCodeProxyBigResult: the same 10 MiB result through
// `ctxhook proxy`: the model gets its head and a pointer, the store the
// whole of it.
func TestClaudeCodeProxyBigResult(t *testing.T) {
	requireE2E(t)
	r := runClaudeWith(t, claudeOpts{script: bigScript(), prompt: "Export the event log of ticket CVX-5909.",
		config: "[servers.tickets]\nproxy = true\n", ticketsViaProxy: true})
	pointed := false
	for _, req := range r.Model.Requests() {
		pointed = pointed || strings.Contains(string(req), "The full response is stored as event e")
	}
	if !pointed {
		t.Errorf("no request to the model carried the proxy's pointer to the stored result")
	}
	checkBigSearchable(t, r.env(), r.Project, r.CtxhookBin, r.Home)
}

// TestClaudeCodeResume: a session resumed with `claude --resume`, then
// compacted with /compact, gets ctxhook's working-state block each time
// (SessionStart, source "resume" and "compact"): the model's requests hold
// the relay server's name and the ticket the session fetched before,
// within the block's bound, with no planted secret and no token in it.
func TestClaudeCodeResume(t *testing.T) {
	requireE2E(t)
	script := workflowScript(2, map[int]string{1: "CVX-5909"})
	r := runClaudeWith(t, claudeOpts{script: script, prompt: "Run the deploy-payments workflow and check ticket CVX-5909."})
	var first struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &first); err != nil || first.SessionID == "" {
		t.Fatalf("no session id in claude's output (%v): %s", err, r.Stdout)
	}
	again := func(prompt string) []string {
		before := len(r.Model.Requests())
		out, errs, err := run(t, 4*time.Minute, r.env(), r.Project, []byte{}, r.Claude,
			append([]string{"-p", prompt, "--resume", first.SessionID}, r.Flags...)...)
		if err != nil {
			t.Fatalf("claude -p %q --resume: %v\n%s\n%s", prompt, err, out, errs)
		}
		var blocks []string
		for _, req := range r.Model.Requests()[before:] {
			blocks = append(blocks, blocksIn(t, req)...)
		}
		return blocks
	}
	check := func(when string, blocks []string, head string) {
		t.Helper()
		var block string
		for _, b := range blocks {
			if strings.HasPrefix(b, head) {
				block = b
			}
		}
		if block == "" {
			t.Fatalf("%s: no request holds the working-state block %q (blocks seen: %q)", when, head, blocks)
		}
		t.Logf("%s: block (%d bytes):\n%s", when, len(block), block)
		for _, want := range []string{"workflow", "CVX-5909", "get_event"} {
			if !strings.Contains(block, want) {
				t.Errorf("%s: the block does not name %q", when, want)
			}
		}
		if len(block) > 1536 {
			t.Errorf("%s: the block is %d bytes, over its default bound of 1536", when, len(block))
		}
		for _, secret := range append(planted, "wfs_") {
			if strings.Contains(block, secret) {
				t.Errorf("%s: the block holds %q", when, secret)
			}
		}
	}
	check("resume", again("Carry on where we left off."), "[ctxhook] This session's working state, restored after it was resumed:")
	// /compact makes no request after its summary: the block its
	// SessionStart (source "compact") gave is in the next run's first
	// request, beside that run's own resume block.
	time.Sleep(2100 * time.Millisecond) // a later moment, not a hook run twice
	again("/compact")
	time.Sleep(2100 * time.Millisecond)
	blocks := again("Go on.")
	check("after /compact", blocks, "[ctxhook] This session's working state, restored after its context was compacted:")
}

// TestClaudeCodeResumeRelay: a workflow whose token travels in the result
// text, relayed by the hooks, goes on across `claude --resume` and
// /compact. Every run of Claude Code starts the workflow server anew.
// Tokens held in the server's memory ("process") die with it: at most the
// first call after each resume is rejected, ctxhook retires that token and
// tells the model so, the next call (without a token) starts a new session
// and every later call is accepted. Signed tokens ("signed") survive the
// restart: every call after the resume is accepted and the workflow goes on
// in the same session, step after step. In neither is a rejected token ever
// sent again.
func TestClaudeCodeResumeRelay(t *testing.T) {
	requireE2E(t)
	for _, tokens := range []string{"process", "signed"} {
		t.Run(tokens, func(t *testing.T) { testResumeRelay(t, tokens) })
	}
}

func testResumeRelay(t *testing.T, tokens string) {
	r := runClaudeWith(t, claudeOpts{script: workflowScript(2, nil), tokens: tokens,
		prompt: "Run the deploy-payments workflow."})
	var first struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &first); err != nil || first.SessionID == "" {
		t.Fatalf("no session id in claude's output (%v): %s", err, r.Stdout)
	}
	before := readToolCalls(t, r.MCPLog)
	seen, session := len(before), sessionOf(t, before[len(before)-1])
	// resumed runs Claude Code again on the session with a script of its
	// own; it returns the model's requests of that run and the workflow
	// calls the server saw in it.
	resumed := func(prompt string, script []fakemodel.Step) ([][]byte, []toolCall) {
		t.Helper()
		r.Model.Continue(script, prompt)
		from := len(r.Model.Requests())
		out, errs, err := run(t, 4*time.Minute, r.env(), r.Project, []byte{}, r.Claude,
			append([]string{"-p", prompt, "--resume", first.SessionID}, r.Flags...)...)
		if err != nil {
			t.Fatalf("claude -p %q --resume: %v\n%s\n%s", prompt, err, out, errs)
		}
		if len(script) > 0 && !strings.Contains(out, "FINAL_ANSWER") {
			t.Fatalf("claude -p %q --resume did not finish its script:\n%s\n%s", prompt, out, errs)
		}
		calls := readToolCalls(t, r.MCPLog)
		defer func() { seen = len(calls) }()
		return r.Model.Requests()[from:], calls[seen:]
	}
	var all []toolCall
	for i, run := range []struct {
		prompt string
		steps  [2]int // the first and last step it runs; none for /compact
	}{
		{"Carry on with the workflow (part 2).", [2]int{3, 5}},
		{"/compact", [2]int{}},
		{"Go on with the workflow (part 3).", [2]int{6, 7}},
	} {
		if i > 0 {
			time.Sleep(2100 * time.Millisecond) // a later moment, not a hook run twice
		}
		var script []fakemodel.Step
		for n := run.steps[0]; n > 0 && n <= run.steps[1]; n++ {
			script = append(script, fakemodel.Step{Tool: "mcp__workflow__step", Input: map[string]any{"n": n}})
		}
		reqs, calls := resumed(run.prompt, script)
		if len(calls) != len(script) {
			t.Fatalf("%s: the server saw %d calls, want %d", run.prompt, len(calls), len(script))
		}
		if len(calls) > 0 {
			checkResumedRun(t, tokens, run.prompt, reqs, calls, session)
		}
		all = append(all, calls...)
	}
	// No rejected token is ever sent again.
	rejected := map[string]bool{}
	for i, c := range all {
		tok := tokenOf(c)
		if tok != "" && rejected[tok] {
			t.Errorf("call %d carried a token the server had rejected before", i+1)
		}
		if c.Result.IsError && tok != "" {
			rejected[tok] = true
		}
	}
	if tokens == "process" && len(rejected) != 2 {
		t.Errorf("%d tokens rejected, want one per resume that made calls (2)", len(rejected))
	}
}

// checkResumedRun checks the workflow calls of one resumed run: the
// block called the kept token unconfirmed; a server whose tokens died
// rejected the first call only, the model was told, and the next call went
// without the token; a server with signed tokens accepted every call, in
// the workflow's own session.
func checkResumedRun(t *testing.T, tokens, prompt string, reqs [][]byte, calls []toolCall, session string) {
	t.Helper()
	told, unconfirmed := false, false
	for _, req := range reqs {
		told = told || strings.Contains(string(req), "rejected the session token ctxhook sent")
		for _, b := range blocksIn(t, req) {
			unconfirmed = unconfirmed || strings.Contains(b, "still holds a session token from before the resume for: workflow")
		}
	}
	if !unconfirmed {
		t.Errorf("%s: no working-state block calls the kept token unconfirmed", prompt)
	}
	for j, c := range calls {
		t.Logf("%s: step %v with a token of %d characters: error %v %.120s", prompt, c.Args["n"], len(tokenOf(c)), c.Result.IsError, resultText(c))
		if c.Result.IsError && (j > 0 || tokens == "signed") {
			t.Errorf("%s: call %d after the resume was rejected: %s", prompt, j+1, resultText(c))
		}
	}
	switch tokens {
	case "process":
		if !calls[0].Result.IsError || !told {
			t.Errorf("%s: the first call was rejected %v (want true), the model told %v (want true)", prompt, calls[0].Result.IsError, told)
		}
		if len(calls) > 1 && tokenOf(calls[1]) != "" {
			t.Errorf("%s: the call after the rejection carried a token", prompt)
		}
	case "signed":
		if told {
			t.Errorf("%s: the model was told a token was rejected", prompt)
		}
		for _, c := range calls {
			if got := sessionOf(t, c); got != session {
				t.Errorf("%s: step %v ran in session %q, not the workflow's %q", prompt, c.Args["n"], got, session)
			}
		}
	}
}

// tokenOf is the token a workflow call reached the server with.
func tokenOf(c toolCall) string {
	tok, _ := c.Args["session_token"].(string)
	return tok
}

func resultText(c toolCall) string {
	var b strings.Builder
	for _, p := range c.Result.Content {
		b.WriteString(p.Text)
	}
	return b.String()
}

// sessionOf is the workflow session a call's result names.
func sessionOf(t *testing.T, c toolCall) string {
	t.Helper()
	var body struct {
		Session string `json:"session"`
	}
	json.Unmarshal([]byte(resultText(c)), &body)
	if body.Session == "" && c.Name == "step" && !c.Result.IsError {
		t.Fatalf("step %v names no session: %s", c.Args["n"], resultText(c))
	}
	return body.Session
}

// blocksIn returns the working-state blocks in a Messages API request.
func blocksIn(t *testing.T, req []byte) []string {
	const head, end = "[ctxhook] This session's working state", "(or `ctxhook search <words>`).\n"
	var body struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(req, &body)
	var out []string
	for _, m := range body.Messages {
		var v any
		json.Unmarshal(m.Content, &v)
		eachString(v, func(rest string) {
			for {
				i := strings.Index(rest, head)
				if i < 0 {
					return
				}
				j := strings.Index(rest[i:], end)
				if j < 0 {
					t.Errorf("a block is cut in the request: %.300s", rest[i:])
					return
				}
				out = append(out, rest[i:i+j+len(end)])
				rest = rest[i+j+len(end):]
			}
		})
	}
	return out
}

// TestClaudeCodeRedactModel: with [redact] model = true, every kind of the
// held-secret corpus planted in MCP results reaches real Claude Code's
// model redacted, through the hooks and through the proxy; and the relay
// server's token, which travels in a text block, reaches the model only
// as a placeholder while every call still gets the real one.
func TestClaudeCodeRedactModel(t *testing.T) {
	requireE2E(t)
	corpus := secretcorpus.Generate(1)
	for _, viaProxy := range []bool{false, true} {
		t.Run(map[bool]string{false: "hooks", true: "proxy"}[viaProxy], func(t *testing.T) {
			script := workflowScript(2, nil)
			var planted []secretcorpus.Planted
			for i, p := range corpus {
				if p.Known {
					continue // environment values and relay tokens: the relay's part, checked below
				}
				planted = append(planted, p)
				script = append(script, fakemodel.Step{Tool: "mcp__tickets__get_secret", Input: map[string]any{"index": i}})
			}
			r := runClaudeWith(t, claudeOpts{script: script, prompt: "Run the deploy-payments workflow and read the pasted snippets.",
				config: "[servers.workflow]\nrelay = true\n[redact]\nmodel = true\n", ticketsViaProxy: viaProxy})
			if steps := checkRelayChain(t, readToolCalls(t, r.MCPLog), len(script)); steps != 2 {
				t.Fatalf("%d steps reached the server", steps)
			}
			// Everything the model was sent, as text.
			var sent strings.Builder
			for _, req := range r.Model.Requests() {
				var v any
				json.Unmarshal(req, &v)
				eachString(v, func(s string) { sent.WriteString(s + "\n") })
			}
			text := sent.String()
			leaked := 0
			for _, p := range planted {
				if secretcorpus.Leaked(text, p.Secret) {
					leaked++
					t.Errorf("%s reached the model", p.Kind)
				}
			}
			if strings.Contains(text, "wfs_") {
				t.Errorf("the workflow server's token reached the model")
			}
			if n := strings.Count(text, "[REDACTED"); n < len(planted) {
				t.Errorf("the model saw %d redaction markers for %d planted secrets: did the results reach it?", n, len(planted))
			}
			t.Logf("%d secrets planted, %d reached the model; every workflow call accepted", len(planted), leaked)
		})
	}
}

// eachString calls fn with every string in a decoded JSON value.
func eachString(v any, fn func(string)) {
	switch v := v.(type) {
	case string:
		fn(v)
	case []any:
		for _, x := range v {
			eachString(x, fn)
		}
	case map[string]any:
		for _, x := range v {
			eachString(x, fn)
		}
	}
}

// TestClaudeCodeStatusLine: the status line `ctxhook install` sets shows,
// in real interactive Claude Code (in a pseudo-terminal), the figures of
// the session it resumes: the events captured and the tokens relayed.
func TestClaudeCodeStatusLine(t *testing.T) {
	requireE2E(t)
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) for a pseudo-terminal (util-linux's bsdutils)")
	}
	r := runClaudeWith(t, claudeOpts{script: workflowScript(2, nil), prompt: "Run the deploy-payments workflow."})
	settings, _ := os.ReadFile(filepath.Join(r.Home, ".claude", "settings.json"))
	if !strings.Contains(string(settings), "statusline") {
		t.Fatalf("install set no status line:\n%s", settings)
	}
	var first struct {
		SessionID string `json:"session_id"`
	}
	json.Unmarshal([]byte(r.Stdout), &first)
	// Interactive Claude Code asks first about onboarding, the folder's
	// trust and the API key: answered as a user who has done so before.
	cfgPath := filepath.Join(r.Home, ".claude.json")
	var cfg map[string]any
	b, _ := os.ReadFile(cfgPath)
	if json.Unmarshal(b, &cfg) != nil {
		cfg = map[string]any{}
	}
	key := "sk-ant-fake-offline-key"
	cfg["hasCompletedOnboarding"] = true
	cfg["customApiKeyResponses"] = map[string]any{"approved": []string{key[len(key)-20:]}, "rejected": []string{}}
	projects, _ := cfg["projects"].(map[string]any)
	if projects == nil {
		projects = map[string]any{}
	}
	proj, _ := projects[r.Project].(map[string]any)
	if proj == nil {
		proj = map[string]any{}
	}
	proj["hasTrustDialogAccepted"] = true
	projects[r.Project] = proj
	cfg["projects"] = projects
	b, _ = json.Marshal(cfg)
	os.WriteFile(cfgPath, b, 0o600)

	args := []string{r.Claude, "--resume", first.SessionID}
	for i := 0; i < len(r.Flags); i++ {
		if r.Flags[i] == "--output-format" {
			i++
			continue
		}
		args = append(args, r.Flags[i])
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, scriptBin, "-qfec", strings.Join(quoted, " "), "/dev/null")
	cmd.Env = append(r.env(), "TERM=xterm-256color", "COLUMNS=160", "LINES=40")
	cmd.Dir = r.Project
	stdin, _ := cmd.StdinPipe()
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// script(1) runs Claude Code in a session of its own: both are ended
	// by the session id on their command lines, and waited for, before
	// the test's directories go.
	defer func() {
		stdin.Close()
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if exec.Command("pkill", "-KILL", "-f", first.SessionID).Run() != nil {
				break // none left
			}
		}
		cmd.Wait()
	}()
	ansi := regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Za-z]|\r`)
	want := regexp.MustCompile(`ctxhook · \d+ events captured( · [^·\n]+)* · \d+ tokens relayed`)
	var screen string
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		screen = ansi.ReplaceAllString(out.String(), "")
		if want.MatchString(screen) {
			t.Logf("status line: %s", want.FindString(screen))
			return
		}
	}
	o1, e1, _ := run(t, time.Minute, r.env(), r.Project, []byte(`{"session_id":"`+first.SessionID+`"}`), r.CtxhookBin, "statusline")
	o2, e2, _ := run(t, time.Minute, r.env(), r.Project, nil, r.CtxhookBin, "stats", "--json")
	t.Logf("statusline by hand: %s %s\nstats: %s %s", o1, e1, o2, e2)
	t.Fatalf("no ctxhook status line on the screen after 60 s (%d bytes of output):\n%q", len(out.String()), out.String()[max(0, len(out.String())-3000):])
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

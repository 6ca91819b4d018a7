package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/internal/homeprocs"
)

// AgentSDKVersion is the pinned Claude Agent SDK
// (@anthropic-ai/claude-agent-sdk); it bundles Claude Code 2.1.328 as a
// native binary (@anthropic-ai/claude-agent-sdk-linux-x64) that query()
// spawns.
const AgentSDKVersion = "0.3.328"

// BunVersion is the Bun that `make adapters` installs (adapters/package.json).
const BunVersion = "1.3.14"

const agentSDKPkg = "@anthropic-ai/claude-agent-sdk"

// TestAgentSDK: the real Claude Agent SDK's query() with ctxhook's
// callbacks (adapters/agent-sdk ctxhookHooks()) as Options.hooks, on Node
// and on Bun. The SDK's bundled Claude Code talks to the fake model and
// runs the workflow and tickets MCP servers; the callbacks run in the
// driver's process and are decided by the ctxhook daemon of a temporary
// CTXHOOK_HOME. As TestClaudeCode asserts for command hooks: the token the
// workflow server rotates on every call is relayed into the next step
// though the model never sends it, `ctxhook search` finds the responses
// right after the run, the nudge and the shaped responses reach the
// model, the Stop hook indexes the transcript, and the planted secrets
// are in no file ctxhook wrote. Also: the user's own hooks given through
// `merge` still run, and no decision took the in-process path.
func TestAgentSDK(t *testing.T) {
	requireE2E(t)
	sdkDir, _ := clientPath(agentSDKPkg, AgentSDKVersion, "")
	if _, err := os.Stat(filepath.Join(sdkDir, "node_modules", agentSDKPkg, "package.json")); err != nil {
		t.Skipf("%s@%s is not installed in %s: install it with the network first (CTXHOOK_E2E_PREPARE=1 go test ./e2e/, as make e2e does)", agentSDKPkg, AgentSDKVersion, sdkDir)
	}
	if bins, _ := filepath.Glob(filepath.Join(sdkDir, "node_modules", agentSDKPkg+"-*", "claude")); len(bins) == 0 {
		t.Skipf("npm installed no bundled Claude Code (%s-<platform>) for this platform in %s", agentSDKPkg, sdkDir)
	}
	var pkg struct{ Version string }
	b, _ := os.ReadFile(filepath.Join(sdkDir, "node_modules", agentSDKPkg, "package.json"))
	if json.Unmarshal(b, &pkg); pkg.Version != AgentSDKVersion {
		t.Fatalf("%s holds %s %q, want %s", sdkDir, agentSDKPkg, pkg.Version, AgentSDKVersion)
	}
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "adapters", "node_modules", "@extism", "extism", "package.json")); err != nil {
		t.Skip("the JS adapters' dependencies are not installed: run make adapters")
	}
	driver, err := os.ReadFile(filepath.Join(root, "e2e", "agentsdk", "driver.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// Next to the SDK's node_modules, so its bare import resolves.
	driverPath := filepath.Join(sdkDir, "ctxhook-e2e-driver.mjs")
	if err := os.WriteFile(driverPath, driver, 0o644); err != nil {
		t.Fatal(err)
	}

	if keep := os.Getenv("CTXHOOK_E2E_KEEP"); keep != "" {
		os.MkdirAll(filepath.Join(keep, t.Name()), 0o755) // the subtests' logs go there
	}

	t.Run("node", func(t *testing.T) {
		node, err := exec.LookPath("node")
		if err != nil {
			t.Skip("no node on PATH")
		}
		runAgentSDK(t, node, driverPath, "node ")
	})
	t.Run("bun", func(t *testing.T) {
		bun := filepath.Join(root, "adapters", "node_modules", "@oven", "bun-linux-x64", "bin", "bun")
		if _, err := os.Stat(bun); err != nil {
			t.Skipf("no Bun at %s (make adapters installs it on linux-x64)", bun)
		}
		runAgentSDK(t, bun, driverPath, "bun "+BunVersion)
	})
}

// agentSDKSummary is what the driver prints.
type agentSDKSummary struct {
	Runtime   string   `json:"runtime"`
	Result    *string  `json:"result"`
	IsError   *bool    `json:"is_error"`
	SessionID string   `json:"session_id"`
	Messages  int      `json:"messages"`
	Logs      []string `json:"logs"`
	Error     string   `json:"error"`
}

// agentSDKRecord is one line of the driver's record.
type agentSDKRecord struct {
	Hook   string          `json:"hook"`
	User   string          `json:"user"`
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
	Log    *string         `json:"log"`
	Stderr *string         `json:"stderr"`
}

func runAgentSDK(t *testing.T, runtimeBin, driverPath, wantRuntime string) {
	script := workflowScript(3, map[int]string{1: "CVX-5909"})
	for _, st := range script {
		if _, sent := st.Input["session_token"]; sent {
			t.Fatalf("script sends the token itself; the test would prove nothing")
		}
	}
	cr := newClientRun(t, script)
	ctxhook, testmcp := binaries(t)
	root := repoRoot(t)

	// A temporary CTXHOOK_HOME with the relay on for the workflow server.
	// Every daemon serving it is ended when the test ends.
	cxh := filepath.Join(cr.Tmp, "cxh")
	os.MkdirAll(filepath.Join(cxh, "config"), 0o700)
	if err := os.WriteFile(filepath.Join(cxh, "config", "config.toml"), []byte("[servers.workflow]\nrelay = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if n := homeprocs.KillDaemons(cxh); n > 0 {
			t.Logf("ended %d ctxhook daemon(s) of %s", n, cxh)
		}
		homeprocs.KillAll(cxh)
	})
	env := append((&claudeRun{clientRun: cr}).env(), "CTXHOOK_HOME="+cxh, "NODE_NO_WARNINGS=1")

	// The daemon, up before the first callback, so every decision can be
	// the daemon's (without it the first calls are decided in-process
	// while the one the adapter starts comes up).
	out, errs, err := run(t, time.Minute, env, cr.Project, nil, ctxhook, "io", "socket")
	var sock struct {
		Socket string `json:"socket"`
	}
	if err != nil || json.Unmarshal([]byte(out), &sock) != nil || sock.Socket == "" {
		t.Fatalf("ctxhook io socket: %v %s %s", err, out, errs)
	}
	daemon := exec.Command(ctxhook, "daemon")
	daemon.Env = env
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { daemon.Process.Kill(); daemon.Wait() })
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		if fi, err := os.Lstat(sock.Socket); err == nil && fi.Mode()&os.ModeSocket != 0 {
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("no daemon socket at %s 30s after start", sock.Socket)
		}
	}

	// The ctxhook binary the adapter runs, through a wrapper that logs its
	// arguments: `io load` and `io apply` are the in-process path's.
	ioLog := filepath.Join(cr.Tmp, "ctxhook-args.log")
	wrapper := filepath.Join(cr.Tmp, "ctxhook-logged")
	os.WriteFile(wrapper, []byte("#!/bin/sh\nprintf '%s\\n' \"$*\" >> '"+ioLog+"'\nexec '"+ctxhook+"' \"$@\"\n"), 0o755)

	record := filepath.Join(cr.Tmp, "record.jsonl")
	server := func(mode string) map[string]any {
		return map[string]any{"type": "stdio", "command": testmcp, "args": []string{"-mode", mode, "-large"},
			"env": map[string]string{"TESTMCP_LOG": cr.MCPLog}}
	}
	cfg := map[string]any{
		"adapter":      filepath.Join(root, "adapters", "agent-sdk", "index.js"),
		"ctxhook":      wrapper,
		"prompt":       "Run the deploy-payments workflow and check ticket CVX-5909.",
		"model":        "claude-sonnet-4-5",
		"cwd":          cr.Project,
		"record":       record,
		"mcpServers":   map[string]any{"workflow": server("workflow"), "tickets": server("tickets")},
		"allowedTools": []string{"mcp__workflow__start_session", "mcp__workflow__step", "mcp__tickets__get_ticket"},
	}
	b, _ := json.Marshal(cfg)
	cfgPath := filepath.Join(cr.Tmp, "driver.json")
	os.WriteFile(cfgPath, b, 0o644)

	start := time.Now()
	out, errs, err = run(t, 4*time.Minute, env, filepath.Dir(driverPath), []byte{}, runtimeBin, driverPath, cfgPath)
	t.Logf("%s ran the SDK query in %v", filepath.Base(runtimeBin), time.Since(start).Round(time.Millisecond))
	recs := readAgentSDKRecord(t, record)
	if keep := os.Getenv("CTXHOOK_E2E_KEEP"); keep != "" {
		rb, _ := os.ReadFile(record)
		os.WriteFile(filepath.Join(keep, t.Name()+".record.jsonl"), rb, 0o644)
	}
	var sum agentSDKSummary
	if jerr := json.Unmarshal([]byte(lastLine(out)), &sum); err != nil || jerr != nil || sum.Result == nil || !strings.Contains(*sum.Result, "FINAL_ANSWER") || sum.IsError == nil || *sum.IsError {
		var cliErr strings.Builder
		for _, r := range recs {
			if r.Stderr != nil {
				cliErr.WriteString(*r.Stderr)
			}
		}
		t.Fatalf("driver: %v\nstdout: %s\nstderr: %s\nCLI stderr: %s", err, tail(out, 4000), tail(errs, 4000), tail(cliErr.String(), 4000))
	}
	if !strings.HasPrefix(sum.Runtime, wantRuntime) {
		t.Errorf("the driver ran on %q, want %s", sum.Runtime, wantRuntime)
	}
	t.Logf("runtime %s, session %s, %d messages", sum.Runtime, sum.SessionID, sum.Messages)
	for _, l := range sum.Logs {
		t.Errorf("ctxhook logged: %s", l)
	}

	// 1. The callbacks ran for every event ctxhook handles, in this
	// process, with Claude Code's inputs; the user's merged hook ran too.
	seen := map[string]int{}
	userPre := 0
	metaSeen := false
	for _, r := range recs {
		if r.Hook != "" {
			seen[r.Hook]++
			var in struct {
				Event        string          `json:"hook_event_name"`
				Session      string          `json:"session_id"`
				ToolName     string          `json:"tool_name"`
				ToolResponse json.RawMessage `json:"tool_response"`
			}
			json.Unmarshal(r.Input, &in)
			if in.Event != r.Hook || in.Session != sum.SessionID {
				t.Errorf("%s callback got event %q session %q, want session %q", r.Hook, in.Event, in.Session, sum.SessionID)
			}
			if r.Hook == "PostToolUse" && strings.HasPrefix(in.ToolName, "mcp__workflow__") && strings.Contains(string(in.ToolResponse), "_meta") {
				metaSeen = true
			}
		}
		if r.User == "PreToolUse" {
			userPre++
		}
	}
	t.Logf("callbacks: %v; MCP result _meta visible to PostToolUse: %v", seen, metaSeen)
	// SessionStart is registered but not required: the SDK 0.3.328 fires
	// no SessionStart callback given in Options.hooks, with a string prompt
	// too (as anthropics/claude-agent-sdk-typescript#465 reports for a
	// streamed one); Stop indexes the transcript all the same.
	if seen["SessionStart"] == 0 {
		t.Logf("the SDK fired no SessionStart callback")
	}
	for ev, want := range map[string]int{"UserPromptSubmit": 1, "PostToolUse": len(script), "Stop": 1} {
		if seen[ev] < want {
			t.Errorf("ctxhook's %s callback ran %d times, want at least %d", ev, seen[ev], want)
		}
	}
	if seen["PreToolUse"] != len(script) {
		t.Errorf("PreToolUse (matcher mcp__.*) ran %d times for %d MCP calls", seen["PreToolUse"], len(script))
	}
	if userPre != len(script) {
		t.Errorf("the user's merged PreToolUse hook ran %d times, want %d", userPre, len(script))
	}

	// 2. Decided by the daemon: the adapter asked the binary where it
	// listens, and never ran the in-process path's io load or io apply.
	args, _ := os.ReadFile(ioLog)
	t.Logf("the adapter ran ctxhook %d times: %q", strings.Count(string(args), "\n"), strings.Split(strings.TrimSpace(string(args)), "\n"))
	if !strings.Contains(string(args), "io socket") {
		t.Errorf("the adapter never asked ctxhook for its daemon (io socket): %q", args)
	}
	if strings.Contains(string(args), "io load") || strings.Contains(string(args), "io apply") {
		t.Errorf("decided in-process, not by the daemon:\n%s", args)
	}

	// 3. The relay: every step reached the server with the token the
	// previous call issued, though the model never sent one.
	if steps := checkRelayChain(t, readToolCalls(t, cr.MCPLog), len(script)); steps != 3 {
		t.Fatalf("%d steps reached the server", steps)
	}
	checkModelNeverSentToken(t, cr.Model, anthropicToolInputs("mcp__workflow__step"))

	// 4. Search finds the responses right after the run, in the SDK's
	// session; the nudge reached the model; the planted secrets are in no
	// file ctxhook wrote, though the ticket text is.
	search := func(args ...string) []struct {
		Kind, Tool, Session, Snippet string
	} {
		t.Helper()
		out, errs, err := run(t, time.Minute, env, cr.Project, nil, ctxhook, append([]string{"search", "--json"}, args...)...)
		if err != nil {
			t.Fatalf("search %v: %v %s", args, err, errs)
		}
		var res struct {
			Results []struct{ Kind, Tool, Session, Snippet string }
		}
		json.Unmarshal([]byte(out), &res)
		return res.Results
	}
	if hits := search("CVX-5909"); len(hits) == 0 || hits[0].Tool != "mcp__tickets__get_ticket" || hits[0].Session != sum.SessionID || !strings.Contains(hits[0].Snippet, "CVX-5909") {
		t.Errorf("search CVX-5909: the first result is not the get_ticket response of session %s: %+v", sum.SessionID, hits)
	}
	for n := 1; n <= 3; n++ {
		hits := search("--session", sum.SessionID, "--server", "workflow", fmt.Sprintf("WF-STEP-%03d", n))
		if len(hits) != 1 || hits[0].Tool != "mcp__workflow__step" {
			t.Errorf("search WF-STEP-%03d: want the one step response: %+v", n, hits)
		}
	}
	checkNudged(t, cr.Model)
	checkHomeFiles(t, cxh)

	// 5. The 12-20 KB responses were shaped: the model got heads and
	// pointers, and the facts past the heads are still found.
	checkShaped(t, cr.Model)
	if hits := search("FACT CVX-5909 release"); len(hits) == 0 || hits[0].Tool != "mcp__tickets__get_ticket" {
		t.Errorf("the ticket's fact is not found: %+v", hits)
	}

	// 6. The Stop hook indexed the SDK session's transcript.
	chunk := false
	for _, h := range search("deploy-payments workflow") {
		chunk = chunk || h.Kind == "chunk"
	}
	if !chunk {
		t.Errorf("the transcript was not indexed")
	}

	// 7. The store's tally of the session: each MCP call recorded once,
	// three tokens relayed, the nudge and the shaping counted.
	out, _, _ = run(t, time.Minute, env, cr.Project, nil, ctxhook, "stats", "--session", sum.SessionID, "--json")
	var st struct {
		ByServer map[string]int `json:"by_server"`
		Tallies  map[string]int `json:"tallies"`
	}
	json.Unmarshal([]byte(out), &st)
	if st.ByServer["workflow"] != 4 || st.ByServer["tickets"] != 1 || st.Tallies["tokens_relayed"] != 3 ||
		st.Tallies["nudges_fired"] < 1 || st.Tallies["responses_shaped"] < 1 {
		t.Errorf("stats: want 4 workflow and 1 tickets events, 3 tokens relayed, a nudge and shaped responses: %s", out)
	}
}

// anthropicToolInputs extracts, from an Anthropic Messages request body,
// the inputs of the assistant's tool_use blocks for tool.
func anthropicToolInputs(tool string) func([]byte) []string {
	return func(req []byte) []string {
		var body struct {
			Messages []struct {
				Role    string            `json:"role"`
				Content []json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(req, &body)
		var out []string
		for _, m := range body.Messages {
			for _, raw := range m.Content {
				var b struct {
					Type  string          `json:"type"`
					Name  string          `json:"name"`
					Input json.RawMessage `json:"input"`
				}
				json.Unmarshal(raw, &b)
				if m.Role == "assistant" && b.Type == "tool_use" && b.Name == tool {
					out = append(out, string(b.Input))
				}
			}
		}
		return out
	}
}

// checkHomeFiles: the planted secrets are in no file under a
// CTXHOOK_HOME, the ticket text is, and no file is readable by others.
func checkHomeFiles(t *testing.T, home string) {
	t.Helper()
	checkSecrets(t, filesUnder(t, home))
}

func readAgentSDKRecord(t *testing.T, path string) []agentSDKRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var recs []agentSDKRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r agentSDKRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			recs = append(recs, r)
		}
	}
	return recs
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndex(s, "\n")+1:]
}

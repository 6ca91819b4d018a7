package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// ContinueVersion is the pinned Continue CLI (`cn`) release. Its hooks
// have no caller, so nothing fires: ctxhook reaches it through the
// proxy only.
const ContinueVersion = "1.5.47"

// continueRun is one headless `cn -p` run against the fake model.
type continueRun struct {
	*clientRun
	Ctxhook string
	Env     []string
}

// continueOpts shape one run: viaProxy runs the servers behind `ctxhook
// proxy` (else as Continue would run them alone), inText has the
// workflow server write its token into the text the model reads too, and
// config is added to ctxhook's config.toml.
type continueOpts struct {
	viaProxy, inText bool
	config           string
}

// runContinue runs Continue CLI once through a 20-step workflow whose
// server rotates its token in result _meta, with a large ticket at step
// 10.
func runContinue(t *testing.T, o continueOpts) *continueRun {
	t.Helper()
	cn := npmInstall(t, "@continuedev/cli", ContinueVersion, "cn")
	ctxhook, testmcp := binaries(t)
	r := &continueRun{clientRun: newClientRun(t, workflowScript(20, map[int]string{10: "CVX-5909"})), Ctxhook: ctxhook}
	cfgDir := filepath.Join(r.Home, ".config", "ctxhook")
	os.MkdirAll(cfgDir, 0o700)
	os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte("[servers.workflow]\nrelay = true\nproxy = true\n\n[servers.tickets]\nproxy = true\n"+o.config), 0o600)
	servers := map[string][]string{
		"workflow": {testmcp, "-mode", "workflow", "-meta-only"},
		"tickets":  {testmcp, "-mode", "tickets", "-large"},
	}
	if o.inText {
		servers["workflow"] = servers["workflow"][:3]
	}
	if o.viaProxy {
		for name, argv := range servers {
			servers[name] = append([]string{ctxhook, "proxy", "--name", name, "--"}, argv...)
		}
	}
	config := continueConfig(r.Model.URL, servers, r.MCPLog)
	configPath := filepath.Join(r.Home, ".continue", "config.yaml")
	os.MkdirAll(filepath.Dir(configPath), 0o700)
	if err := os.WriteFile(configPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	// CONTINUE_GLOBAL_DIR keeps its sessions and logs in the test's HOME;
	// telemetry off. Under scripts/offline.sh (loopback only) the run
	// passes: nothing else is fetched.
	r.Env = isolatedEnv(r.Home, "CONTINUE_GLOBAL_DIR="+filepath.Join(r.Home, ".continue"),
		"CONTINUE_METRICS_ENABLED=0", "CONTINUE_CLI_ENABLE_TELEMETRY=0", "NO_COLOR=1", "FORCE_NO_TTY=1")
	out, errs, err := run(t, 4*time.Minute, r.Env, r.Project, []byte{}, cn,
		"-p", "Run the deploy-payments workflow to the end.", "--config", configPath)
	if err != nil || !strings.Contains(out, "FINAL_ANSWER") {
		t.Fatalf("cn: %v\nstdout: %s\nstderr: %s", err, tail(out, 3000), tail(errs, 3000))
	}
	return r
}

// continueConfig is a Continue config.yaml: one OpenAI-compatible model at
// the fake model's address, and the MCP servers (name: argv), in a
// stable order.
func continueConfig(modelURL string, servers map[string][]string, mcpLog string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) } // JSON strings are YAML strings
	var b strings.Builder
	fmt.Fprintf(&b, `name: ctxhook-e2e
version: 0.0.1
schema: v1
models:
  - name: fake
    provider: openai
    model: fake-model
    apiBase: %s
    apiKey: sk-fake-offline-key
    roles: [chat]
    capabilities: [tool_use]
mcpServers:
`, q(modelURL+"/v1"))
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		var args []string
		for _, a := range servers[name][1:] {
			args = append(args, q(a))
		}
		fmt.Fprintf(&b, "  - name: %s\n    command: %s\n    args: [%s]\n    env:\n      TESTMCP_LOG: %s\n",
			name, q(servers[name][0]), strings.Join(args, ", "), q(mcpLog))
	}
	return b.String()
}

// TestContinueCLIProxy: Continue CLI runs a 20-step workflow through
// ctxhook proxy. Every step reached the server with the token the
// previous call issued (the model sent none), Continue and the model
// never saw a token, ctxhook search finds the steps, and no planted
// secret is in ctxhook's files.
func TestContinueCLIProxy(t *testing.T) {
	requireE2E(t)
	r := runContinue(t, continueOpts{viaProxy: true})
	checkRelayChain(t, readToolCalls(t, r.MCPLog), 22)
	checkShaped(t, r.Model)
	checkModelNeverSentToken(t, r.Model, chatToolArgs("step"))
	checkContinueNeverSawToken(t, r)
	for _, n := range []int{1, 7, 20} {
		out, errs, err := searchFor(t, r.Env, r.Project, r.Ctxhook, `"tool": "mcp__workflow__step"`, "--server", "workflow", fmt.Sprintf("WF-STEP-%03d", n))
		if err != nil || !strings.Contains(out, `"tool": "mcp__workflow__step"`) {
			t.Errorf("search WF-STEP-%03d: %v %s %s", n, err, out, errs)
		}
	}
	checkSecrets(t, ctxhookFiles(t, r.Home))
}

// TestContinueCLIProxyTokenInText: a server that also writes its token
// into the text the model reads (where the model could retype it, and
// Continue would keep it in its sessions). Through the proxy the text
// reaches Continue with a placeholder in its place: neither the model's
// requests nor Continue's files hold a token, and the relay holds.
func TestContinueCLIProxyTokenInText(t *testing.T) {
	requireE2E(t)
	r := runContinue(t, continueOpts{viaProxy: true, inText: true})
	calls := readToolCalls(t, r.MCPLog)
	checkRelayChain(t, calls, 22)
	if last := calls[len(calls)-1].Result.Content; len(last) == 0 || !strings.Contains(last[0].Text, "wfs_") {
		t.Fatalf("the server did not put its token in the text: the test proves nothing")
	}
	checkContinueNeverSawToken(t, r)
	placeholder := false
	for _, req := range r.Model.Requests() {
		placeholder = placeholder || strings.Contains(string(req), "[session token held by ctxhook]")
	}
	if !placeholder {
		t.Errorf("no request to the model carried the placeholder in the token's place")
	}
}

// checkContinueNeverSawToken: no request to the model and no file of
// Continue's (its sessions under its global directory) holds a token,
// and they hold the ticket only as its shaped head.
func checkContinueNeverSawToken(t *testing.T, r *continueRun) {
	t.Helper()
	for _, req := range r.Model.Requests() {
		if strings.Contains(string(req), "wfs_") {
			t.Fatalf("a request to the model contains a session token")
		}
	}
	sawStep, sawPointer := false, false
	for _, f := range filesUnder(t, filepath.Join(r.Home, ".continue")) {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), "wfs_") {
			t.Errorf("%s holds a session token", f)
		}
		if strings.Contains(string(b), "FACT CVX-5909") {
			t.Errorf("%s holds the ticket past its head", f)
		}
		sawStep = sawStep || strings.Contains(string(b), "WF-STEP-020")
		sawPointer = sawPointer || strings.Contains(string(b), "The full response is stored as event e")
	}
	if !sawStep || !sawPointer {
		t.Errorf("Continue's files hold the last step's result: %v, the shaped ticket: %v; the checks above proved nothing", sawStep, sawPointer)
	}
}

// TestContinueCLIWithoutProxy: the run of TestContinueCLIProxyTokenInText
// with the servers not wrapped. Continue has no hook that could carry the
// token, so no step reaches the server with it and every one is refused,
// and the token the server wrote into its text reaches the model and
// Continue's session files: what the proxy tests check is the proxy's
// doing.
func TestContinueCLIWithoutProxy(t *testing.T) {
	requireE2E(t)
	r := runContinue(t, continueOpts{inText: true})
	calls := readToolCalls(t, r.MCPLog)
	steps, refused := 0, 0
	for _, c := range calls {
		if c.Name != "step" {
			continue
		}
		steps++
		if tok, _ := c.Args["session_token"].(string); tok != "" {
			t.Errorf("a step reached the server with a token, with no proxy to put it there")
		}
		if c.Result.IsError {
			refused++
		}
	}
	if steps == 0 || refused != steps {
		t.Errorf("%d of %d steps refused: want every one, the relay needs the proxy", refused, steps)
	}
	toModel, toFiles := false, false
	for _, req := range r.Model.Requests() {
		toModel = toModel || strings.Contains(string(req), "wfs_")
	}
	for _, f := range filesUnder(t, filepath.Join(r.Home, ".continue")) {
		b, _ := os.ReadFile(f)
		toFiles = toFiles || strings.Contains(string(b), "wfs_")
	}
	if !toModel || !toFiles {
		t.Errorf("without the proxy the token reached the model: %v, Continue's files: %v; want both", toModel, toFiles)
	}
}

// TestContinueCLIRedactModel: with `[redact] model`, what the proxy passes
// on is redacted too, so the secrets a server's result carries in its
// head reach neither the model nor Continue's session files, which keep
// what they get unredacted. Without it they reach both (this test with
// the setting removed fails on both).
func TestContinueCLIRedactModel(t *testing.T) {
	requireE2E(t)
	r := runContinue(t, continueOpts{viaProxy: true, config: "\n[redact]\nmodel = true\n"})
	checkRelayChain(t, readToolCalls(t, r.MCPLog), 22)
	sawTicket := false
	for _, f := range filesUnder(t, filepath.Join(r.Home, ".continue")) {
		b, _ := os.ReadFile(f)
		for _, s := range planted {
			if strings.Contains(string(b), s) {
				t.Errorf("planted secret %q found in %s", s, f)
			}
		}
		sawTicket = sawTicket || strings.Contains(string(b), "retryPolicyForGateway")
	}
	if !sawTicket {
		t.Errorf("the ticket's head is in none of Continue's files: the check proved nothing")
	}
	for _, req := range r.Model.Requests() {
		for _, s := range planted {
			if strings.Contains(string(req), s) {
				t.Fatalf("a request to the model holds the planted secret %q", s)
			}
		}
	}
	checkSecrets(t, ctxhookFiles(t, r.Home))
}

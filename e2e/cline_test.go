package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ClineVersion is the pinned Cline CLI release (npm cline, with its
// Bun-compiled binary in @cline/cli-<os>-<arch> of the same version).
const ClineVersion = "3.0.65"

// TestCline: real Cline CLI, offline against the fake model (provider
// openai-compatible, set with `cline auth`), with ctxhook installed by
// `ctxhook install cline --wrap-mcp workflow`. Cline's hook files see a
// tool's result but cannot replace it, so the workflow server's relay
// runs in the proxy (its token is in result _meta only) while the
// PostToolUse hook file captures and nudges. The run must show the relay
// chain unbroken, the ticket found by `ctxhook search` under Cline's tool
// name, the nudge in a later request to the model, and no planted secret
// in ctxhook's files.
func TestCline(t *testing.T) {
	requireE2E(t)
	cline := npmInstall(t, "cline", ClineVersion, "cline")
	ctxhook, testmcp := binaries(t)
	script := workflowScript(3, map[int]string{2: "CVX-5909"})
	cr := newClientRun(t, script)
	home, project, mcpLog, model := cr.Home, cr.Project, cr.MCPLog, cr.Model
	settings := filepath.Join(home, ".cline", "data", "settings", "cline_mcp_settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	mcp := map[string]any{"mcpServers": map[string]any{
		"workflow": map[string]any{"command": testmcp, "args": []string{"-mode", "workflow", "-meta-only"}, "env": map[string]string{"TESTMCP_LOG": mcpLog}},
		"tickets":  map[string]any{"command": testmcp, "args": []string{"-mode", "tickets"}, "env": map[string]string{"TESTMCP_LOG": mcpLog}},
	}}
	b, _ := json.MarshalIndent(mcp, "", "  ")
	os.WriteFile(settings, b, 0o644)
	env := isolatedEnv(home, "NO_COLOR=1", "CLINE_NO_AUTO_UPDATE=1", "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	t.Cleanup(func() { stopClineHub(t, project) })
	if out, errs, err := run(t, 2*time.Minute, env, project, nil, cline, "auth", "-p", "openai-compatible", "-k", "sk-fake", "-m", "fake-model", "-b", model.URL+"/v1"); err != nil {
		t.Fatalf("cline auth: %v\n%s%s", err, out, errs)
	}

	installHarness(t, env, project, ctxhook, home, "cline", filepath.Join(home, ".cline", "hooks", "PostToolUse"), "--wrap-mcp", "workflow")

	out, errs, err := run(t, 4*time.Minute, env, project, []byte{}, cline, "--json", "Run the deploy-payments workflow and check ticket CVX-5909.")
	if err != nil || !strings.Contains(out, "FINAL_ANSWER") {
		t.Fatalf("cline: %v\nstdout: %s\nstderr: %s", err, tail(out, 3000), tail(errs, 5000))
	}
	if steps := checkRelayChain(t, readToolCalls(t, mcpLog), len(script)); steps != 3 {
		t.Fatalf("%d steps reached the server", steps)
	}
	for _, req := range model.Requests() {
		if strings.Contains(string(req), "wfs_") {
			t.Fatalf("a request to the model contains a session token")
		}
	}
	checkCaptured(t, env, project, ctxhook, home, model, "CVX-5909", "tickets__get_ticket")
	if out, _, err := run(t, time.Minute, env, project, nil, ctxhook, "show", "1"); err != nil || !strings.Contains(out, "(cline)") {
		t.Errorf("the events are not stored under cline: %v\n%s", err, tail(out, 2000))
	}
}

// stopClineHub ends the hub daemon Cline started for this test's project
// (it outlives the run): the process whose command line names both the
// daemon flag and the project, found in /proc.
func stopClineHub(t *testing.T, project string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cmd := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(cmd, "--cline-hub-daemon") && strings.Contains(cmd, project) {
			t.Logf("ending Cline's hub daemon %d", pid)
			if p, err := os.FindProcess(pid); err == nil {
				p.Signal(syscall.SIGTERM) // /proc is Linux's: only there is one found
			}
		}
	}
}

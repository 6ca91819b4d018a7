package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// QwenVersion is the pinned Qwen Code release. It asks for Node 22 and
// runs on Node 20.
const QwenVersion = "0.24.4"

// TestQwen: real Qwen Code, offline against the fake model (its OpenAI
// provider), with ctxhook installed by `ctxhook install qwen --wrap-mcp
// workflow`. Qwen Code's hooks take Claude Code's format with Gemini
// CLI's tool_response and ignore a changed input, so the workflow
// server's relay runs in the proxy (its token is in result _meta only)
// while the hooks capture and nudge.
func TestQwen(t *testing.T) {
	requireE2E(t)
	qwen := npmInstall(t, "@qwen-code/qwen-code", QwenVersion, "qwen")
	ctxhook, testmcp := binaries(t)
	script := workflowScript(3, map[int]string{2: "CVX-5909"})
	cr := newClientRun(t, script)
	home, project, mcpLog, model := cr.Home, cr.Project, cr.MCPLog, cr.Model
	qwenDir := filepath.Join(home, ".qwen")
	os.MkdirAll(qwenDir, 0o755)
	settings := map[string]any{
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"mcpServers": map[string]any{
			"workflow": map[string]any{"command": testmcp, "args": []string{"-mode", "workflow", "-meta-only"}, "env": map[string]string{"TESTMCP_LOG": mcpLog}, "trust": true},
			"tickets":  map[string]any{"command": testmcp, "args": []string{"-mode", "tickets"}, "env": map[string]string{"TESTMCP_LOG": mcpLog}, "trust": true},
		},
	}
	b, _ := json.MarshalIndent(settings, "", "  ")
	os.WriteFile(filepath.Join(qwenDir, "settings.json"), b, 0o644)
	env := isolatedEnv(home, "OPENAI_API_KEY=sk-fake", "OPENAI_BASE_URL="+model.URL+"/v1", "OPENAI_MODEL=fake-model",
		"QWEN_CODE_SUPPRESS_YOLO_WARNING=1", "NO_COLOR=1", "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))

	installHarness(t, env, project, ctxhook, home, "qwen", filepath.Join(qwenDir, "settings.json"), "--wrap-mcp", "workflow")
	record := filepath.Join(cr.Tmp, "hooks.jsonl")
	recordHooks(t, filepath.Join(qwenDir, "settings.json"), ctxhook, record)

	out, errs, err := run(t, 4*time.Minute, env, project, []byte{}, qwen, "--auth-type", "openai", "--yolo",
		"-p", "Run the deploy-payments workflow and check ticket CVX-5909.")
	if err != nil || !strings.Contains(out, "FINAL_ANSWER") {
		t.Fatalf("qwen: %v\nstdout: %s\nstderr: %s", err, tail(out, 3000), tail(errs, 5000))
	}
	if steps := checkRelayChain(t, readToolCalls(t, mcpLog), len(script)); steps != 3 {
		t.Fatalf("%d steps reached the server", steps)
	}
	for _, req := range model.Requests() {
		if strings.Contains(string(req), "wfs_") {
			t.Fatalf("a request to the model contains a session token")
		}
	}
	checkCaptured(t, env, project, ctxhook, home, model, "CVX-5909", "mcp__tickets__get_ticket")
	if out, _, err := run(t, time.Minute, env, project, nil, ctxhook, "show", "1"); err != nil || !strings.Contains(out, "(qwen)") {
		t.Errorf("the events are not stored under qwen: %v\n%s", err, tail(out, 2000))
	}
	checkRecord(t, record, map[string]string{"PostToolUse": "mcp__tickets__get_ticket"}, "tool_response")
}

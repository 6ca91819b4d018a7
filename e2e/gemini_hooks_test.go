package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGeminiCLIHooks: real Gemini CLI with ctxhook wired by `ctxhook
// install gemini` (no proxy). Gemini's AfterTool never sees result _meta,
// so the workflow server here also returns its token in the text, where
// the hook finds it inside Gemini's <untrusted_context> wrapper; BeforeTool
// then sends the whole input back with the token added.
func TestGeminiCLIHooks(t *testing.T) {
	requireE2E(t)
	gemini := npmInstall(t, "@google/gemini-cli", GeminiCLIVersion, "gemini")
	ctxhook, testmcp := binaries(t)
	script := workflowScript(3, map[int]string{2: "CVX-5909"})
	cr := newClientRun(t, script)
	home, project, mcpLog, model := cr.Home, cr.Project, cr.MCPLog, cr.Model
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	settings := map[string]any{
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"mcpServers": map[string]any{
			"workflow": map[string]any{"command": testmcp, "args": []string{"-mode", "workflow"},
				"env": map[string]string{"TESTMCP_LOG": mcpLog}, "trust": true},
			"tickets": map[string]any{"command": testmcp, "args": []string{"-mode", "tickets"},
				"env": map[string]string{"TESTMCP_LOG": mcpLog}, "trust": true},
		},
	}
	b, _ := json.MarshalIndent(settings, "", "  ")
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), b, 0o644)
	env := isolatedEnv(home, "GOOGLE_GEMINI_BASE_URL="+model.URL, "GEMINI_API_KEY=fake-offline-key",
		"GEMINI_CLI_TRUST_WORKSPACE=true", "NO_COLOR=1")

	out, errs, err := run(t, time.Minute, env, project, nil, ctxhook, "install", "gemini")
	if err != nil || !strings.Contains(out, "Wired 7 Gemini CLI hooks") {
		t.Fatalf("ctxhook install gemini: %v\n%s%s", err, out, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".gemini", "settings.json")); !strings.Contains(string(b), `"timeout": 30000`) || !strings.Contains(string(b), `"trust": true`) {
		t.Fatalf("settings after install:\n%s", b)
	}
	os.WriteFile(filepath.Join(home, ".config", "ctxhook", "config.toml"), []byte("[servers.workflow]\nrelay = true\n"), 0o600)

	out, errs, err = run(t, 4*time.Minute, env, project, []byte{}, gemini,
		"-p", "Run the deploy-payments workflow and check ticket CVX-5909.", "--output-format", "json", "--yolo", "-m", "gemini-2.5-flash")
	if err != nil || !strings.Contains(out, "FINAL_ANSWER") {
		t.Fatalf("gemini: %v\nstdout: %s\nstderr: %s", err, tail(out, 3000), tail(errs, 3000))
	}
	if steps := checkRelayChain(t, readToolCalls(t, mcpLog), len(script)); steps != 3 {
		t.Fatalf("%d steps reached the server", steps)
	}
	checkModelNeverSentToken(t, model, func(body []byte) []string {
		var req struct {
			Contents []struct {
				Parts []struct {
					FunctionCall *struct {
						Name string         `json:"name"`
						Args map[string]any `json:"args"`
					} `json:"functionCall"`
				} `json:"parts"`
			} `json:"contents"`
		}
		json.Unmarshal(body, &req)
		var out []string
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if p.FunctionCall != nil && p.FunctionCall.Name == "mcp_workflow_step" {
					a, _ := json.Marshal(p.FunctionCall.Args)
					out = append(out, string(a))
				}
			}
		}
		return out
	})
	checkCaptured(t, env, project, ctxhook, home, model, "CVX-5909", "mcp_tickets_get_ticket")
}

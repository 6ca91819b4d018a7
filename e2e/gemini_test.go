package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// GeminiCLIVersion is the pinned Gemini CLI release.
const GeminiCLIVersion = "0.61.0"

// TestGeminiCLIProxy: Gemini CLI's hooks never see result _meta; through
// ctxhook proxy, a 20-step workflow whose server rotates its token in _meta
// only runs to the end without the model ever sending or seeing a token.
func TestGeminiCLIProxy(t *testing.T) {
	requireE2E(t)
	gemini := npmInstall(t, "@google/gemini-cli", GeminiCLIVersion, "gemini")
	ctxhook, testmcp := binaries(t)
	script := workflowScript(20, nil)
	cr := newClientRun(t, script)
	home, project, mcpLog, model := cr.Home, cr.Project, cr.MCPLog, cr.Model
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	// ctxhook's config: the relay on for the proxied workflow server.
	cfgDir := filepath.Join(home, ".config", "ctxhook")
	os.MkdirAll(cfgDir, 0o700)
	os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte("[servers.workflow]\nrelay = true\nproxy = true\n"), 0o600)
	settings := map[string]any{
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"mcpServers": map[string]any{"workflow": map[string]any{
			"command": ctxhook,
			"args":    []string{"proxy", "--name", "workflow", "--", testmcp, "-mode", "workflow", "-meta-only"},
			"env":     map[string]string{"TESTMCP_LOG": mcpLog},
			"trust":   true,
		}},
	}
	b, _ := json.MarshalIndent(settings, "", "  ")
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), b, 0o644)

	env := isolatedEnv(home, "GOOGLE_GEMINI_BASE_URL="+model.URL, "GEMINI_API_KEY=fake-offline-key",
		"GEMINI_CLI_TRUST_WORKSPACE=true", "NO_COLOR=1")
	out, errs, err := run(t, 4*time.Minute, env, project, []byte{}, gemini,
		"-p", "Run the deploy-payments workflow to the end.", "--output-format", "json", "--yolo", "-m", "gemini-2.5-flash")
	if err != nil || !strings.Contains(out, "FINAL_ANSWER") {
		t.Fatalf("gemini: %v\nstdout: %s\nstderr: %s", err, out, tail(errs, 3000))
	}

	checkRelayChain(t, readToolCalls(t, mcpLog), 21)
	for _, req := range model.Requests() {
		if strings.Contains(string(req), "wfs_") {
			t.Fatalf("a request to the model contains a session token")
		}
	}
	for _, n := range []int{1, 20} {
		out, errs, err := searchFor(t, env, project, ctxhook, `"tool": "mcp__workflow__step"`, fmt.Sprintf("WF-STEP-%03d", n))
		if err != nil || !strings.Contains(out, `"tool": "mcp__workflow__step"`) {
			t.Errorf("search WF-STEP-%03d: %v %s %s", n, err, out, errs)
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/e2e/internal/fakemodel"
)

// CodexVersion is the pinned Codex CLI release.
const CodexVersion = "0.169.0"

// TestCodex: real Codex CLI with ctxhook wired by `ctxhook install codex`.
// The workflow server puts its rotating token in result _meta only; Codex
// passes the whole CallToolResult to PostToolUse, so the hook captures it
// and injects it into the next step (updatedInput with
// permissionDecision "allow").
func TestCodex(t *testing.T) {
	requireE2E(t)
	script := workflowScript(3, map[int]string{2: "CVX-5909"})
	r := runCodex(t, script, "Run the deploy-payments workflow and check ticket CVX-5909.")
	env, project, ctxhook, home, model, mcpLog := r.env, r.Project, r.ctxhook, r.Home, r.Model, r.MCPLog
	calls := readToolCalls(t, mcpLog)
	if steps := checkRelayChain(t, calls, len(script)); steps != 3 {
		t.Fatalf("%d steps reached the server", steps)
	}
	for _, c := range calls {
		for _, b := range c.Result.Content {
			if strings.Contains(b.Text, "wfs_") {
				t.Fatalf("the server put the token in text: the test would not prove _meta capture")
			}
		}
	}
	checkModelNeverSentToken(t, model, func(body []byte) []string {
		var req struct {
			Input []struct {
				Type, Name, Arguments string
			} `json:"input"`
		}
		json.Unmarshal(body, &req)
		var out []string
		for _, in := range req.Input {
			if in.Type == "function_call" && in.Name == "step" {
				out = append(out, in.Arguments)
			}
		}
		return out
	})
	checkCaptured(t, env, project, ctxhook, home, model, "CVX-5909", "mcp__tickets__get_ticket")
	// The Stop hook indexed Codex's rollout file.
	if out, _, _ := run(t, time.Minute, env, project, nil, ctxhook, "search", "--json", "deploy-payments workflow"); !strings.Contains(out, `"kind": "chunk"`) {
		t.Errorf("the Codex transcript was not indexed: %s", out)
	}
}

// TestCodexBigResult: Codex hands PostToolUse the whole 10 MiB
// CallToolResult; the hook stores it within its deadline, searchable to
// its last line.
func TestCodexBigResult(t *testing.T) {
	requireE2E(t)
	r := runCodex(t, bigScript(), "Export the event log of ticket CVX-5909.")
	checkBigSearchable(t, r.env, r.Project, r.ctxhook, r.Home)
}

// codexRun is one Codex CLI run with ctxhook installed.
type codexRun struct {
	*clientRun
	env     []string
	ctxhook string
}

// runCodex installs ctxhook with `ctxhook install codex` into a fresh
// HOME (relay on for the workflow server) and runs Codex with the script.
func runCodex(t *testing.T, script []fakemodel.Step, prompt string) *codexRun {
	t.Helper()
	codex := npmInstall(t, "@openai/codex", CodexVersion, "codex")
	ctxhook, testmcp := binaries(t)
	cr := newClientRun(t, script)
	home, project, mcpLog, model := cr.Home, cr.Project, cr.MCPLog, cr.Model
	codexHome := filepath.Join(home, ".codex")
	os.MkdirAll(codexHome, 0o755)

	config := `model = "fake-model"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[features]
plugins = false
remote_plugin = false

[analytics]
enabled = false

[feedback]
enabled = false

[model_providers.fake]
name = "Fake"
base_url = "` + model.URL + `/v1"
wire_api = "responses"
env_key = "FAKE_OPENAI_KEY"
requires_openai_auth = false

[mcp_servers.workflow]
command = "` + testmcp + `"
args = ["-mode", "workflow", "-meta-only"]
env = { TESTMCP_LOG = "` + mcpLog + `" }

[mcp_servers.tickets]
command = "` + testmcp + `"
args = ["-mode", "tickets"]
env = { TESTMCP_LOG = "` + mcpLog + `" }
`
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644)
	env := isolatedEnv(home, "CODEX_HOME="+codexHome, "FAKE_OPENAI_KEY=sk-fake-offline", "NO_COLOR=1", "RUST_LOG=error")

	out, errs, err := run(t, time.Minute, env, project, nil, ctxhook, "install", "codex")
	if err != nil || !strings.Contains(out, "Wired 6 Codex CLI hooks") || !strings.Contains(out, "/hooks") {
		t.Fatalf("ctxhook install codex: %v\n%s%s", err, out, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(codexHome, "config.toml")); !strings.Contains(string(b), "hooks = true # added by ctxhook") {
		t.Fatalf("install did not turn hooks on:\n%s", b)
	}
	os.WriteFile(filepath.Join(home, ".config", "ctxhook", "config.toml"), []byte("[servers.workflow]\nrelay = true\n"), 0o600)

	out, errs, err = run(t, 4*time.Minute, env, project, []byte{}, codex,
		"exec", "--json", "--strict-config", "--skip-git-repo-check", "--dangerously-bypass-hook-trust",
		prompt)
	if err != nil || !strings.Contains(out, "FINAL_ANSWER") {
		t.Fatalf("codex: %v\nstdout: %s\nstderr: %s", err, tail(out, 4000), tail(errs, 3000))
	}

	keepTranscripts(t, filepath.Join(codexHome, "sessions"))
	return &codexRun{clientRun: cr, env: env, ctxhook: ctxhook}
}

// keepLogs moves the model and MCP logs to CTXHOOK_E2E_KEEP when set.
func keepLogs(t *testing.T, model *fakemodel.Server, mcpLog *string) {
	if keep := os.Getenv("CTXHOOK_E2E_KEEP"); keep != "" {
		os.MkdirAll(keep, 0o755)
		model.LogPath = filepath.Join(keep, t.Name()+".model.jsonl")
		*mcpLog = filepath.Join(keep, t.Name()+".mcp.jsonl")
		os.MkdirAll(filepath.Dir(*mcpLog), 0o755) // a subtest's name holds a slash
		os.Remove(model.LogPath)
		os.Remove(*mcpLog)
	}
}

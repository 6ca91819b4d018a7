package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// CopilotVersion is the pinned GitHub Copilot CLI release.
const CopilotVersion = "1.0.102"

// TestCopilot: real GitHub Copilot CLI, offline against the fake model
// (its own provider settings: no GitHub login), with ctxhook's hooks
// installed by `ctxhook install copilot`. Copilot speaks Claude Code's
// hook format with its own MCP tool names (<server>-<tool>), hands
// PostToolUse the result's text in tool_result, and reads text for the
// model only at the answer's top level. It also runs a repository's
// .claude/settings.json hooks: with ctxhook's Claude Code hooks there as
// well, every call is still recorded once.
func TestCopilot(t *testing.T) {
	requireE2E(t)
	copilot := npmInstall(t, "@github/copilot", CopilotVersion, "copilot")
	ctxhook, testmcp := binaries(t)
	script := workflowScript(3, map[int]string{2: "CVX-5909"})
	cr := newClientRun(t, script)
	home, project, mcpLog, model := cr.Home, cr.Project, cr.MCPLog, cr.Model
	copilotHome := filepath.Join(home, ".copilot")
	os.MkdirAll(copilotHome, 0o755)
	mcp := map[string]any{"mcpServers": map[string]any{
		"workflow": map[string]any{"type": "local", "command": testmcp, "args": []string{"-mode", "workflow"}, "tools": []string{"*"},
			"env": map[string]string{"TESTMCP_LOG": mcpLog}},
		"tickets": map[string]any{"type": "local", "command": testmcp, "args": []string{"-mode", "tickets"}, "tools": []string{"*"},
			"env": map[string]string{"TESTMCP_LOG": mcpLog}},
	}}
	b, _ := json.MarshalIndent(mcp, "", "  ")
	mcpPath := filepath.Join(cr.Tmp, "mcp.json")
	os.WriteFile(mcpPath, b, 0o644)
	env := isolatedEnv(home, "PATH="+filepath.Dir(ctxhook)+string(os.PathListSeparator)+os.Getenv("PATH"), "COPILOT_HOME="+copilotHome, "COPILOT_OFFLINE=true", "COPILOT_PROVIDER_TYPE=openai",
		"COPILOT_PROVIDER_BASE_URL="+model.URL+"/v1", "COPILOT_PROVIDER_API_KEY=sk-fake", "COPILOT_PROVIDER_WIRE_API=completions",
		"COPILOT_MODEL=gpt-4.1", "COPILOT_ALLOW_ALL=true", "NO_COLOR=1", "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))

	installHarness(t, env, project, ctxhook, home, "copilot", filepath.Join(copilotHome, "settings.json"))
	// ctxhook's Claude Code hooks in the repository too, which Copilot
	// also runs.
	if out, errs, err := run(t, time.Minute, env, project, nil, ctxhook, "install", "claude-code", "--project"); err != nil {
		t.Fatalf("ctxhook install claude-code --project: %v\n%s%s", err, out, errs)
	}
	record := filepath.Join(cr.Tmp, "hooks.jsonl")
	recordHooks(t, filepath.Join(copilotHome, "settings.json"), ctxhook, record)
	recordHooks(t, filepath.Join(project, ".claude", "settings.json"), "ctxhook", filepath.Join(cr.Tmp, "claude-hooks.jsonl"))

	out, errs, err := run(t, 4*time.Minute, env, project, []byte{}, copilot, "-p", "Run the deploy-payments workflow and check ticket CVX-5909.",
		"--allow-all-tools", "--no-auto-update", "--additional-mcp-config", "@"+mcpPath)
	if err != nil || !strings.Contains(out, "FINAL_ANSWER") {
		t.Fatalf("copilot: %v\nstdout: %s\nstderr: %s", err, tail(out, 3000), tail(errs, 5000))
	}
	calls := readToolCalls(t, mcpLog)
	if steps := checkRelayChain(t, calls, len(script)); steps != 3 {
		t.Fatalf("%d steps reached the server", steps)
	}
	// Unlike the other clients, Copilot keeps the input a hook changed in
	// the conversation: the model sees the token in its earlier calls,
	// though it never typed one (README, "GitHub Copilot CLI"). No hook
	// of Copilot's can change that history, so it is not checked here.
	checkCaptured(t, env, project, ctxhook, home, model, "CVX-5909", "tickets-get_ticket")
	// Each call once: the Claude Code hooks Copilot also ran left its
	// calls alone.
	out, _, err = run(t, time.Minute, env, project, nil, ctxhook, "search", "--json", "--limit", "50", "CVX-5909")
	if n := strings.Count(out, `"tool": "tickets-get_ticket"`); err != nil || n != 1 {
		t.Errorf("the ticket call is stored %d times, want once: %v\n%s", n, err, tail(out, 3000))
	}
	if b, _ := os.ReadFile(filepath.Join(cr.Tmp, "claude-hooks.jsonl")); len(b) == 0 {
		t.Errorf("Copilot ran none of the repository's Claude Code hooks: the once-only check proved nothing")
	}
	if out, _, err := run(t, time.Minute, env, project, nil, ctxhook, "show", "1"); err != nil || !strings.Contains(out, "(copilot)") {
		t.Errorf("the events are not stored under copilot: %v\n%s", err, tail(out, 2000))
	}
	checkRecord(t, record, map[string]string{"PreToolUse": "workflow-step", "PostToolUse": "tickets-get_ticket"}, "tool_result")
}

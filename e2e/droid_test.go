package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// DroidVersion is the pinned Factory Droid binary. @factory/cli 0.225.1
// names a @factory/cli-linux-x64 0.225.1 that was never published; the
// platform package's 0.225.2 is what runs.
const DroidVersion = "0.225.2"

// droidBinary installs the pinned Droid binary and returns its path.
func droidBinary(t *testing.T) string {
	t.Helper()
	if err := npmInstallErr("@factory/cli-linux-x64", DroidVersion, ""); err != nil {
		t.Fatal(err)
	}
	dir, _ := clientPath("@factory/cli-linux-x64", DroidVersion, "")
	return filepath.Join(dir, "node_modules", "@factory", "cli-linux-x64", "bin", "droid")
}

// TestDroid: real Factory Droid, with ctxhook's hooks installed by
// `ctxhook install droid` and its own model set to the fake one (a
// custom model: no Factory login). Droid speaks Claude Code's hook format
// with its own MCP tool names (<server>___<tool>) and hands PostToolUse
// the result's text only, so the workflow server's token is captured
// from the text; Droid offers MCP tools only after the model asked for
// them with ToolSearch.
func TestDroid(t *testing.T) {
	requireE2E(t)
	droid := droidBinary(t)
	ctxhook, testmcp := binaries(t)
	script := workflowScript(3, map[int]string{2: "CVX-5909"})
	cr := newClientRun(t, script)
	home, project, mcpLog, model := cr.Home, cr.Project, cr.MCPLog, cr.Model
	factory := filepath.Join(home, ".factory")
	os.MkdirAll(factory, 0o755)
	settings := map[string]any{"customModels": []any{map[string]any{"model": "fake-model", "displayName": "Fake",
		"baseUrl": model.URL + "/v1", "apiKey": "sk-fake", "provider": "generic-chat-completion-api", "maxOutputTokens": 1024}}}
	b, _ := json.MarshalIndent(settings, "", "  ")
	os.WriteFile(filepath.Join(factory, "settings.json"), b, 0o644)
	mcp := map[string]any{"mcpServers": map[string]any{
		"workflow": map[string]any{"type": "stdio", "command": testmcp, "args": []string{"-mode", "workflow"}, "env": map[string]string{"TESTMCP_LOG": mcpLog}},
		"tickets":  map[string]any{"type": "stdio", "command": testmcp, "args": []string{"-mode", "tickets"}, "env": map[string]string{"TESTMCP_LOG": mcpLog}},
	}}
	b, _ = json.MarshalIndent(mcp, "", "  ")
	os.WriteFile(filepath.Join(factory, "mcp.json"), b, 0o644)
	env := isolatedEnv(home, "FACTORY_DROID_AUTO_UPDATE_ENABLED=false", "FACTORY_DISABLE_KEYRING=1", "NO_COLOR=1",
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"))

	installHarness(t, env, project, ctxhook, home, "droid", filepath.Join(factory, "settings.json"))
	// Each hook's payload is recorded on its way to ctxhook.
	record := filepath.Join(cr.Tmp, "hooks.jsonl")
	recordHooks(t, filepath.Join(factory, "settings.json"), ctxhook, record)

	out, errs, err := run(t, 4*time.Minute, env, project, []byte{}, droid, "exec", "--skip-permissions-unsafe",
		"--add-tools", "MCP:workflow,MCP:tickets", "-m", "custom:fake-model", "Run the deploy-payments workflow and check ticket CVX-5909.")
	if err != nil || !strings.Contains(out, "FINAL_ANSWER") {
		t.Fatalf("droid: %v\nstdout: %s\nstderr: %s", err, tail(out, 3000), tail(errs, 5000))
	}
	calls := readToolCalls(t, mcpLog)
	if steps := checkRelayChain(t, calls, len(script)); steps != 3 {
		t.Fatalf("%d steps reached the server", steps)
	}
	checkModelNeverSentToken(t, model, chatToolArgs("workflow___step"))
	checkCaptured(t, env, project, ctxhook, home, model, "CVX-5909", "tickets___get_ticket")
	if out, _, err := run(t, time.Minute, env, project, nil, ctxhook, "show", "1"); err != nil || !strings.Contains(out, "(droid)") {
		t.Errorf("the events are not stored under droid: %v\n%s", err, tail(out, 2000))
	}
	kept := checkRecord(t, record, map[string]string{"PreToolUse": "workflow___step", "PostToolUse": "tickets___get_ticket"}, "tool_response")
	// Droid hands PostToolUse the result's text alone.
	var p struct {
		ToolResponse json.RawMessage `json:"tool_response"`
	}
	json.Unmarshal(kept["PostToolUse-tickets___get_ticket"], &p)
	if len(p.ToolResponse) == 0 || p.ToolResponse[0] != '"' {
		t.Errorf("Droid's tool_response is not a string: %.200s", p.ToolResponse)
	}
}

// recordHooks makes each ctxhook hook command in a settings file append
// its payload to record (one JSON line: event, payload) before running.
//
// ctxhook is the command as the file names it: the binary's path, or the
// bare "ctxhook" a project's shared file names (found on PATH).
func recordHooks(t *testing.T, settings, ctxhook, record string) {
	t.Helper()
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	wrapper := record + ".sh"
	script := "#!/bin/sh\nfor a; do ev=$a; done\npayload=$(cat)\nprintf '%s' \"$payload\" | jq -c --arg ev \"$ev\" '{event:$ev,payload:.}' >> " +
		record + "\nprintf '%s' \"$payload\" | \"$@\"\n"
	os.WriteFile(wrapper, []byte(script), 0o755)
	// Only the hooks: a harness that keeps its MCP servers in the same
	// file (Qwen Code) runs `ctxhook mcp` and proxies from there too.
	var settingsJSON map[string]any
	if err := json.Unmarshal(b, &settingsJSON); err != nil {
		t.Fatal(err)
	}
	n := 0
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "command" && runsCtxhook(s, ctxhook) {
					v[k] = wrapper + " " + s
					n++
				} else {
					walk(x)
				}
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(settingsJSON["hooks"])
	if n == 0 {
		t.Fatalf("no ctxhook hook command in %s", settings)
	}
	b, _ = json.MarshalIndent(settingsJSON, "", "  ")
	os.WriteFile(settings, b, 0o644)
}

// runsCtxhook reports whether a hook command runs ctxhook: the binary
// named, or a copy of it (install copies ctxhook out of a temporary
// directory, where the tests build it, into its state directory's bin/).
func runsCtxhook(command, ctxhook string) bool {
	if strings.HasPrefix(command, ctxhook) {
		return true
	}
	prog := strings.Trim(strings.Fields(command + " x")[0], `'"`)
	base := strings.TrimSuffix(filepath.Base(prog), ".exe")
	return (base == "ctxhook" || base == "ctxhook-hook") && strings.Contains(prog, string(filepath.Separator)+"bin"+string(filepath.Separator))
}

// checkRecord reads the hooks recordHooks kept and returns one payload
// per event and MCP tool ("PostToolUse-tickets___get_ticket", or the
// event alone for anything else). Each of want (event -> tool) must be
// there, and each PostToolUse of want's tool must carry responseKey.
// With CTXHOOK_RECORD_PAYLOADS=<dir>, the payloads are kept there as
// recorded payloads, pretty-printed.
func checkRecord(t *testing.T, record string, want map[string]string, responseKey string) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatalf("no hook was recorded: %v", err)
	}
	tools := map[string]bool{}
	for _, tool := range want {
		tools[tool] = true
	}
	kept := map[string]json.RawMessage{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal([]byte(line), &r) != nil {
			continue
		}
		var p map[string]json.RawMessage
		json.Unmarshal(r.Payload, &p)
		var tool string
		json.Unmarshal(p["tool_name"], &tool)
		name := r.Event
		if tools[tool] {
			name += "-" + tool
			if r.Event == "PostToolUse" && p[responseKey] == nil {
				t.Errorf("%s has no %s: %.300s", name, responseKey, r.Payload)
			}
		}
		if _, ok := kept[name]; !ok {
			kept[name] = r.Payload
		}
	}
	for event, tool := range want {
		if kept[event+"-"+tool] == nil {
			t.Errorf("no %s hook of %s was recorded (got %d kinds)", event, tool, len(kept))
		}
	}
	if out := os.Getenv("CTXHOOK_RECORD_PAYLOADS"); out != "" {
		os.MkdirAll(out, 0o755)
		for name, p := range kept {
			var v any
			json.Unmarshal(p, &v)
			pretty, _ := json.MarshalIndent(v, "", "  ")
			os.WriteFile(filepath.Join(out, "hook-"+name+".json"), append(pretty, '\n'), 0o644)
		}
	}
	return kept
}

package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/internal/secretcorpus"
)

// TestUnnamedSecretsEndToEnd drives credentials no rule names
// (secretcorpus.Unnamed, every format) and those gitleaks' rules name
// (secretcorpus.Generate) through the real plugin.wasm, with [redact]
// model = true, on two paths: Claude Code's PostToolUse (the text
// content, and structuredContent as the JSON string Claude Code passes)
// and the proxy's mcp-proxy response (result.content and
// result.structuredContent). A planted secret must reach neither the
// model (the hook's answer, the message forwarded) nor any file ctxhook
// wrote (store, -wal, spool, state).
func TestUnnamedSecretsEndToEnd(t *testing.T) {
	e := home(t)
	os.WriteFile(filepath.Join(e["CTXHOOK_HOME"], "config", "config.toml"), []byte("[redact]\nmodel = true\n"), 0o600)
	p, _ := paths.Resolve(e.get)
	ctx := context.Background()
	eng, err := NewEngineWith(ctx, p, e.get, runner.Options{NoInterrupt: true}, KeptStore)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)

	var planted []secretcorpus.Planted
	for _, pl := range append(secretcorpus.Unnamed(2, 9), secretcorpus.Generate(3)...) {
		if !pl.Known { // known values are the relay's and the host's to name
			planted = append(planted, pl)
		}
	}
	leaks := map[string]int{}
	for i, pl := range planted {
		structured, _ := json.Marshal(map[string]any{"result": pl.Text, "n": i})
		content, _ := json.Marshal([]map[string]string{{"type": "text", "text": pl.Text}})
		payloads := map[string][]byte{}
		payloads["claude-code content"], _ = json.Marshal(map[string]any{"session_id": "unnamed", "hook_event_name": "PostToolUse",
			"tool_name": "mcp__notes__get", "tool_use_id": fmt.Sprintf("toolu_c%d", i), "tool_input": map[string]any{"id": i},
			"tool_response": json.RawMessage(content)})
		payloads["claude-code structuredContent"], _ = json.Marshal(map[string]any{"session_id": "unnamed", "hook_event_name": "PostToolUse",
			"tool_name": "mcp__notes__get", "tool_use_id": fmt.Sprintf("toolu_s%d", i), "tool_input": map[string]any{"id": i},
			"tool_response": string(structured)})
		payloads["mcp-proxy content+structuredContent"], _ = json.Marshal(map[string]any{"session_id": "unnamed-proxy", "server": "notes",
			"message": map[string]any{"jsonrpc": "2.0", "id": i, "result": map[string]any{"content": json.RawMessage(content), "structuredContent": json.RawMessage(structured)}},
			"request": map[string]any{"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": map[string]any{"name": "get", "arguments": map[string]any{"id": i}}}})
		for path, payload := range payloads {
			harness, event := "claude-code", "PostToolUse"
			if path[:3] == "mcp" {
				harness, event = "mcp-proxy", "response"
			}
			res, err := eng.Do(ctx, "", harness, event, payload)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if secretcorpus.Leaked(res.Answer, pl.Secret) {
				if leaks[path+" "+pl.Kind]++; leaks[path+" "+pl.Kind] == 1 {
					t.Errorf("%s: a %s secret reached the model: %.300s", path, pl.Kind, res.Answer)
				}
			}
			if path == "claude-code content" && !bytes.Contains([]byte(res.Answer), []byte("updatedMCPToolOutput")) {
				t.Errorf("%s: %s: the result reached the model as the server sent it", path, pl.Kind)
			}
		}
	}

	files := 0
	filepath.WalkDir(p.Data, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		files++
		for _, pl := range planted {
			if bytes.Contains(b, []byte(pl.Secret)) {
				k := bytes.Index(b, []byte(pl.Secret))
				t.Errorf("%s secret at rest in %s: %q", pl.Kind, path, b[max(0, k-300):k+len(pl.Secret)])
			}
		}
		return nil
	})
	if files < 3 {
		t.Fatalf("%d files written: the test reached no store", files)
	}
	t.Logf("%d secrets (%d unnamed formats, gitleaks' kinds) x 3 paths: none reached the model or %d files at rest", len(planted), secretcorpus.UnnamedKinds(), files)
}

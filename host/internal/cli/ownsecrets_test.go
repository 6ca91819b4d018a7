package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
	"github.com/ctxhook/ctxhook/host/internal/ownsecrets"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/state"
)

// readPayloads are three ways a model reads a file, as Claude Code's
// PostToolUse hook reports them: a Bash `cat`, an MCP shell tool, and
// the Read tool. Each result holds value and a marker that must stay
// searchable (the event was captured).
func readPayloads(session, file, value, marker string) map[string]string {
	out := value + "\n" + marker + "\n"
	enc := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	hook := func(tool string, input, response any) string {
		return enc(map[string]any{"session_id": session, "hook_event_name": "PostToolUse", "cwd": "/proj",
			"tool_name": tool, "tool_use_id": "toolu_" + tool + marker, "tool_input": input, "tool_response": response})
	}
	return map[string]string{
		"Bash": hook("Bash", map[string]string{"command": "cat " + file},
			map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}),
		"mcp shell": hook("mcp__shell__run", map[string]string{"command": "cat " + file},
			[]map[string]string{{"type": "text", "text": out}}),
		"Read": hook("Read", map[string]string{"file_path": file},
			map[string]any{"type": "text", "file": map[string]any{"filePath": file, "content": out, "numLines": 2, "startLine": 1, "totalLines": 2}}),
	}
}

// runs12 is every 12-byte run of v.
func runs12(v string) []string {
	var out []string
	for i := 0; i+12 <= len(v); i++ {
		out = append(out, v[i:i+12])
	}
	return out
}

// TestModelReadsOwnSecrets: the model reads the hook secret, another
// session's relay token and the shared store's password, each by a Bash
// `cat`, an MCP shell tool and the Read tool, through real hooks (the
// plugin, SQLite, the state files); a transcript holding all three is
// indexed. Afterwards no 12-byte run of any of them is found by `ctxhook
// search` or by ctxhook mcp's search tool, and no file under ctxhook's
// home holds one, but for the secret's own file, the session document
// that holds the token to inject it and the record of own values. The markers beside them are found:
// the events were captured.
func TestModelReadsOwnSecrets(t *testing.T) {
	e := newEnv(t)
	e.vars["CTXHOOK_NO_DAEMON"] = "1"
	p, err := paths.Resolve(e.get)
	if err != nil {
		t.Fatal(err)
	}
	paths.EnsureDir(p.Data)
	secret, err := hooksecret.Ensure(hooksecret.Path(p.Data))
	if err != nil {
		t.Fatal(err)
	}
	const token = "wf.7Kq2Zr9XbN4mYt8WcV3pLd6HsJ1gFe5Q"
	const password = "Hx9-vRt2Lq7Wm4Zk"
	sd, err := state.Open(p.StateDir())
	if err != nil {
		t.Fatal(err)
	}
	other := sd.File("session/other-session")
	sd.Write("session/other-session", `{"mcp_calls":2,"tokens":{"workflow":"`+token+`"}}`)
	os.MkdirAll(filepath.Dir(p.Config), 0o700)
	os.WriteFile(p.Config, []byte("[servers.workflow]\nrelay = true\n"), 0o600)
	e.vars["CTXHOOK_STORE_URL"] = "postgres://alice:" + password + "@localhost/ctxhook"

	values := map[string]string{"hook secret": secret, "relay token": token, "store password": password}
	files := map[string]string{"hook secret": hooksecret.Path(p.Data), "relay token": other, "store password": p.Config}
	var markers []string
	n := 0
	for what, v := range values {
		for _, path := range []string{"Bash", "mcp shell", "Read"} {
			n++
			marker := fmt.Sprintf("QZMARK%02dX", n)
			markers = append(markers, marker)
			payload := readPayloads("reader", files[what], v, marker)[path]
			if out, errs, code := e.run(t, []byte(payload), "hook", "claude-code", "PostToolUse"); code != 0 || strings.Contains(out+errs, v) {
				t.Fatalf("%s by %s: exit %d\n%s%s", what, path, code, out, errs)
			}
		}
	}
	// A history holding all three, indexed as `ctxhook index` does.
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "transcripts", "claude-code-2.1.330.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte("Check ticket CVX-5909,"), []byte("Check ticket CVX-5909 QZINDEXED "+secret+" "+token+" "+password+","))
	hist := filepath.Join(e.vars["HOME"], ".claude", "projects", "-p", "s1.jsonl")
	os.MkdirAll(filepath.Dir(hist), 0o700)
	os.WriteFile(hist, b, 0o600)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(hist, old, old)
	if out, errs, code := e.run(t, nil, "index", "--all"); code != 0 {
		t.Fatalf("index: %d\n%s%s", code, out, errs)
	}
	delete(e.vars, "CTXHOOK_STORE_URL") // search has no shared store to ask

	for _, m := range append(markers, "QZINDEXED") {
		if out, _, _ := e.run(t, nil, "search", m); !strings.Contains(out, m) {
			t.Fatalf("search %s finds nothing: the test captured nothing to look in\n%s", m, out)
		}
	}
	var queries []string
	for what, v := range values {
		for _, run := range runs12(v) {
			queries = append(queries, run)
			out, errs, _ := e.run(t, nil, "search", "--json", "--", run)
			var res struct{ Hits []json.RawMessage }
			if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Hits) > 0 {
				t.Errorf("search %q (of the %s) finds %s%s", run, what, out, errs)
			}
		}
	}
	for i, text := range mcpSearch(t, e, queries) {
		if !strings.Contains(text, "\nNo events match") {
			t.Errorf("mcp search %q: %s", queries[i], text)
		}
	}

	checked := 0
	filepath.WalkDir(e.vars["CTXHOOK_HOME"], func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		b, _ := os.ReadFile(path)
		checked++
		for what, v := range values {
			if path == files[what] || what == "relay token" && filepath.Base(path) == ownsecrets.RecordName {
				continue // where the value lives by design
			}
			for _, run := range runs12(v) {
				if bytes.Contains(b, []byte(run)) {
					t.Errorf("%s holds %q of the %s", path, run, what)
					break
				}
			}
		}
		return nil
	})
	if wal, err := os.Stat(p.DB() + "-wal"); checked < 4 || err != nil && wal == nil {
		t.Fatalf("checked %d files (WAL: %v)", checked, err)
	}
}

// mcpSearch asks a real `ctxhook mcp` process, over stdio, each query
// with its search tool, and returns the answers' texts in order. Its
// stdin stays open until every answer came: at its end the server stops.
func mcpSearch(t *testing.T, e *testEnv, queries []string) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "mcp")
	cmd.Env = []string{"CTXHOOK_TEST_MAIN=1", "PATH=" + os.Getenv("PATH")}
	for k, v := range e.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	enc := json.NewEncoder(stdin)
	enc.Encode(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}})
	enc.Encode(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	for i, q := range queries {
		enc.Encode(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
			"params": map[string]any{"name": "search", "arguments": map[string]any{"query": q}}})
	}
	texts := make([]string, len(queries))
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 16<<20)
	for got := 0; got < len(queries) && sc.Scan(); {
		var msg struct {
			ID     int
			Result struct{ Content []struct{ Text string } }
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID < 1 || msg.ID > len(queries) || len(msg.Result.Content) == 0 {
			continue
		}
		texts[msg.ID-1] = msg.Result.Content[0].Text
		got++
	}
	for i, text := range texts {
		if text == "" {
			t.Fatalf("ctxhook mcp did not answer the search %q", queries[i])
		}
	}
	return texts
}

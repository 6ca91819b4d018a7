package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/decider"
)

// TestProxyRedactsOtherSessionsTokens: through the proxy's decisions (a
// long-lived decider running the real plugin, as ctxhook proxy and
// ctxhook mcp's hook tool do), an MCP server whose result echoes the
// relay token of another session (a hook's session, and another proxy
// session) and the hook secret gets them redacted: no file outside the
// state directory holds them, while the marker beside them was kept.
func TestProxyRedactsOtherSessionsTokens(t *testing.T) {
	p, secret, _, _ := hookHome(t)
	home := filepath.Dir(p.Data)
	dec := decider.New(func(k string) string {
		switch k {
		case "CTXHOOK_HOME":
			return home
		case "CTXHOOK_NO_DAEMON":
			return "1"
		}
		return ""
	}, p, func(kind, format string, a ...any) { t.Logf(format, a...) })
	t.Cleanup(func() { dec.Close() })
	text := "QZPROXYMARK " + victimToken + " " + proxyToken + " " + secret
	result, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "result": map[string]any{
		"content": []map[string]string{{"type": "text", "text": text}}}})
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"cat","arguments":{"path":"x"}}}`
	payload, _ := json.Marshal(map[string]any{"session_id": "proxy-ffee0011", "server": "files",
		"message": json.RawMessage(result), "request": json.RawMessage(call)})
	out, err := dec.Decide(context.Background(), "mcp-proxy", "response", payload)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{victimToken, proxyToken, secret} {
		if strings.Contains(out, v) {
			t.Errorf("the answer to the client holds %.12s...", v)
		}
	}
	marked := false
	filepath.WalkDir(p.Data, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(path, p.StateDir()) || path == filepath.Join(p.Data, "hook-secret") {
			return nil
		}
		b, _ := os.ReadFile(path)
		marked = marked || bytes.Contains(b, []byte("QZPROXYMARK"))
		for _, v := range []string{victimToken, proxyToken, secret} {
			if bytes.Contains(b, []byte(v[:16])) {
				t.Errorf("%s holds %.16s...", path, v)
			}
		}
		return nil
	})
	if !marked {
		t.Fatal("the result was not kept anywhere: the test looked at nothing")
	}
}

package install

import (
	"encoding/json"
	"github.com/ctxhook/ctxhook/internal/testdir"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const claudeJSON = `{
  "numStartups": 3,
  "mcpServers": {
    "workflow": {"type": "stdio", "command": "node", "args": ["server.js", "--port", "0"], "env": {"K": "v"}},
    "remote": {"type": "http", "url": "https://example.test/mcp"}
  },
  "projects": {
    "/work/app": {"mcpServers": {"jira": {"command": "jira-mcp"}}, "allowedTools": []}
  }
}
`

func TestWrapAndUnwrap(t *testing.T) {
	dir := testdir.New(t)
	path := filepath.Join(dir, ".claude.json")
	os.WriteFile(path, []byte(claudeJSON), 0o600)
	targets := MCPTargets(Claude, "user", func(k string) string { return map[string]string{"HOME": dir}[k] }, "/work/app")
	var wrapped []string
	for _, tg := range targets {
		res, err := WrapMCP(tg, "/opt/ctxhook", nil, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := testJournal(t).Write(res.Plan, true); err != nil {
			t.Fatal(err)
		}
		wrapped = append(wrapped, res.Changed...)
		if tg.Keys[0] == "mcpServers" && !strings.Contains(res.Skipped["remote"], "stdio") {
			t.Errorf("http server not skipped with a reason: %v", res.Skipped)
		}
	}
	if strings.Join(wrapped, ",") != "workflow,jira" {
		t.Fatalf("wrapped %v", wrapped)
	}
	var v struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
		NumStartups int `json:"numStartups"`
	}
	b, _ := os.ReadFile(path)
	json.Unmarshal(b, &v)
	w := v.MCPServers["workflow"]
	if w.Command != "/opt/ctxhook" || strings.Join(w.Args, " ") != "proxy --name workflow -- node server.js --port 0" || w.Env["K"] != "v" || v.NumStartups != 3 {
		t.Fatalf("wrapped entry: %+v (%s)", w, b)
	}
	// Wrapping again changes nothing.
	for _, tg := range targets {
		res, _ := WrapMCP(tg, "/opt/ctxhook", nil, true)
		if res.Plan.Changed {
			t.Errorf("second wrap changed %s", tg.Keys)
		}
	}
	// Unwrapping restores the servers exactly.
	for _, tg := range targets {
		res, err := WrapMCP(tg, "/opt/ctxhook", nil, false)
		if err != nil {
			t.Fatal(err)
		}
		testJournal(t).Write(res.Plan, true)
	}
	after, _ := os.ReadFile(path)
	if !sameJSON(t, after, []byte(claudeJSON)) {
		t.Fatalf("unwrap left\n%s", after)
	}
}

func TestMarkProxied(t *testing.T) {
	orig := "# mine\n[servers.workflow]\nrelay = true\n"
	marked := MarkProxied(orig, []string{"workflow", "jira.cloud"}, true)
	if !strings.Contains(marked, "[servers.workflow]\n"+proxyMark+"\nrelay = true") || !strings.Contains(marked, "[servers.\"jira.cloud\"]\n"+proxyMark) {
		t.Fatalf("marked:\n%s", marked)
	}
	if again := MarkProxied(marked, []string{"workflow", "jira.cloud"}, true); again != marked {
		t.Errorf("not idempotent")
	}
	un := MarkProxied(marked, []string{"workflow", "jira.cloud"}, false)
	if strings.Contains(un, "proxy = true") || !strings.HasPrefix(un, orig) {
		t.Fatalf("unmarked:\n%s", un)
	}
}

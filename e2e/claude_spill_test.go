package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/e2e/internal/fakemodel"
)

// spillFiles lists the files Claude Code saved MCP results to under home:
// 2.1.330 writes a result over its size limit to a tool-results directory
// of the session, inside ~/.claude/projects, and shows the model a preview
// and the file's path.
func spillFiles(t *testing.T, home string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	filepath.WalkDir(filepath.Join(home, ".claude"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(filepath.ToSlash(p), "/tool-results/") {
			b, _ := os.ReadFile(p)
			files[p] = b
		}
		return nil
	})
	return files
}

func spillScript() []fakemodel.Step {
	return []fakemodel.Step{{Tool: "mcp__tickets__export_log", Input: map[string]any{"id": "CVX-5909", "mib": 1}}}
}

// TestClaudeCodeProxyNoSpill: a 1 MiB result through `ctxhook proxy`
// reaches the model once, as ctxhook's head and pointer (far under Claude
// Code's own limit), and Claude Code writes no file of its own for it.
func TestClaudeCodeProxyNoSpill(t *testing.T) {
	requireE2E(t)
	r := runClaudeWith(t, claudeOpts{script: spillScript(), prompt: "Export the event log of ticket CVX-5909.",
		config: "[servers.tickets]\nproxy = true\n", ticketsViaProxy: true})
	pointers := 0
	for i, req := range r.Model.Requests() {
		s := string(req)
		if strings.Contains(s, "ZQLASTMARK") || strings.Contains(s, planted[0]) {
			t.Errorf("request %d to the model holds the log's tail or its planted key", i)
		}
		if i == len(r.Model.Requests())-1 {
			pointers = strings.Count(s, "The full response is stored as event e")
		}
	}
	if pointers != 1 {
		t.Errorf("the model's last request holds %d pointers to the stored result, want exactly 1", pointers)
	}
	if files := spillFiles(t, r.Home); len(files) > 0 {
		for p := range files {
			t.Errorf("Claude Code saved a result of its own: %s", p)
		}
	}
}

// TestClaudeCodeHooksSpill documents the hooks-only path: Claude Code
// saves the same 1 MiB result to its own file before any hook runs, whole
// and unredacted (the planted key in it), and the hook and the model get
// its preview and path. The hook stores the result redacted; the file is
// Claude Code's. docs/claude-code.md says what a user can do.
func TestClaudeCodeHooksSpill(t *testing.T) {
	requireE2E(t)
	r := runClaudeWith(t, claudeOpts{script: spillScript(), prompt: "Export the event log of ticket CVX-5909."})
	files := spillFiles(t, r.Home)
	secret := false
	for p, b := range files {
		t.Logf("Claude Code's own file: %s (%d bytes)", strings.TrimPrefix(p, r.Home), len(b))
		secret = secret || strings.Contains(string(b), planted[0])
	}
	if len(files) != 1 || !secret {
		t.Errorf("want Claude Code's one spill file with the raw result in it (the planted key), got %d files, key in one: %v", len(files), secret)
	}
}

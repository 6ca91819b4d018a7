package mcpserver

import (
	"context"
	"testing"

	"github.com/ctxhook/ctxhook/internal/threatmodel"
)

// TestThreatModelNamesEveryTool fails when a tool of ctxhook mcp, listed
// or served unlisted, has no row in docs/threats.md.
func TestThreatModelNamesEveryTool(t *testing.T) {
	rows, err := threatmodel.Read(threatmodel.Path())
	if err != nil {
		t.Fatal(err)
	}
	cs := connectTo(t, New(Options{DB: t.TempDir() + "/none.db"}), "")
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{HookTool}
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if len(names) < 5 {
		t.Fatalf("tools: %v", names)
	}
	for _, name := range names {
		if _, ok := threatmodel.Find(rows, "tool `"+name+"`"); !ok {
			t.Errorf("tool %q has no row in docs/threats.md", name)
		}
	}
}

package cli

import (
	"testing"

	"github.com/ctxhook/ctxhook/internal/threatmodel"
)

// TestThreatModelNamesEveryCommand fails when a command has no row in
// docs/threats.md: who can reach it, what it may read and write, and the
// test that proves it come with the command, not after it.
func TestThreatModelNamesEveryCommand(t *testing.T) {
	rows, err := threatmodel.Read(threatmodel.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		if _, ok := threatmodel.Find(rows, "`ctxhook "+c.name+"`"); !ok {
			t.Errorf("command %q has no row in docs/threats.md", c.name)
		}
	}
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	harnessconfigs "github.com/ctxhook/ctxhook/harness-configs"
)

// TestNoHarnessNamedInCLI: the commands take every fact about a harness
// from its registry entry, so no product file of this package spells a
// harness's name as a string ("claude-code"). Help text names harnesses
// inside longer strings, which this does not forbid.
func TestNoHarnessNamedInCLI(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range harnessconfigs.All() {
			if strings.Contains(string(b), `"`+h.Name+`"`) {
				t.Errorf("%s names harness %q: take it from the registry", f, h.Name)
			}
		}
	}
}

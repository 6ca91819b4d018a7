package version

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestOneVersion: every npm package of ctxhook's carries Number, and
// CHANGELOG.md has a section for it.
func TestOneVersion(t *testing.T) {
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(Number) {
		t.Fatalf("Number %q is not a semantic version", Number)
	}
	files, _ := filepath.Glob("../../adapters/*/package.json")
	more, _ := filepath.Glob("../../npm/*/package.json")
	files = append(files, more...)
	if len(files) < 3 {
		t.Fatalf("found only %v", files)
	}
	for _, f := range files {
		var pkg struct {
			Name, Version        string
			Private              bool
			OptionalDependencies map[string]string
		}
		b, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(b, &pkg) != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if pkg.Version != Number {
			t.Errorf("%s (%s) is version %q, ctxhook is %s", f, pkg.Name, pkg.Version, Number)
		}
		for dep, v := range pkg.OptionalDependencies {
			if v != Number {
				t.Errorf("%s wants %s %s, ctxhook is %s", f, dep, v, Number)
			}
		}
	}
	log, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil || !regexp.MustCompile(`(?m)^## \[?`+regexp.QuoteMeta(Number)+`\]?`).Match(log) {
		t.Errorf("CHANGELOG.md has no section for %s (%v)", Number, err)
	}
}

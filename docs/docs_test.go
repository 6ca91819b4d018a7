// Package docs holds ctxhook's documentation; its test keeps the README a
// map (short, leading with install) and every relative link in the docs
// pointing at a file that exists.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeIsAMap: the README stays a map of at most 200 lines whose
// first section is how to install; details belong in docs/.
func TestReadmeIsAMap(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 200 {
		t.Errorf("README.md has %d lines: move details into docs/ (at most 200)", n)
	}
	first := regexp.MustCompile(`(?m)^## .*$`).FindString(string(b))
	if first != "## Install" {
		t.Errorf("README's first section is %q, want ## Install", first)
	}
}

var link = regexp.MustCompile(`\]\(([^)#:\s]+)(#[^)]*)?\)`)

// TestRelativeLinks: every relative link of the README and docs/*.md
// names a file or directory that exists.
func TestRelativeLinks(t *testing.T) {
	files, _ := filepath.Glob("*.md")
	files = append(files, "../README.md", "../RATIONALE.md", "../harness-configs/README.md")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := filepath.Join(filepath.Dir(f), m[1])
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s links to %s, which does not exist", f, m[1])
			}
		}
	}
}

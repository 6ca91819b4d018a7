package threatmodel

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryRowIsProved fails when a row names no test, or a test that no
// _test.go file of the module defines: a row must point at something that
// can fail.
func TestEveryRowIsProved(t *testing.T) {
	rows, err := Read(Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 20 {
		t.Fatalf("%d rows: the table was not read", len(rows))
	}
	defined := definedTests(t, filepath.Join(filepath.Dir(Path()), ".."))
	for _, r := range rows {
		if len(r.Tests) == 0 && len(r.Files) == 0 {
			t.Errorf("%s: names no test", r.Entry)
		}
		for _, f := range r.Files {
			if _, err := os.Stat(filepath.Join(filepath.Dir(Path()), "..", f)); err != nil {
				t.Errorf("%s: %s does not exist", r.Entry, f)
			}
		}
		for _, name := range r.Tests {
			if !defined[name] {
				t.Errorf("%s: %s is not a test of this module", r.Entry, name)
			}
		}
		if r.Who == "" || r.Reads == "" || r.Writes == "" {
			t.Errorf("%s: an empty cell", r.Entry)
		}
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	doc := "# x\n\n| entry point | who | reads | writes | proved by |\n|---|---|---|---|---|\n" +
		"| `ctxhook a` | the user | the store | nothing | TestA, FuzzB and e2e |\n"
	path := filepath.Join(dir, "t.md")
	os.WriteFile(path, []byte(doc), 0o600)
	rows, err := Read(path)
	if err != nil || len(rows) != 1 {
		t.Fatalf("%v %v", rows, err)
	}
	if r, ok := Find(rows, "`ctxhook a`"); !ok || strings.Join(r.Tests, ",") != "TestA,FuzzB" {
		t.Fatalf("%+v", r)
	}
	os.WriteFile(path, []byte(doc+"| `b` | one cell short | x | y |\n"), 0o600)
	if _, err := Read(path); err == nil {
		t.Fatal("a short row was accepted")
	}
}

var testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)[A-Za-z0-9_]*)\(`)

// definedTests lists every test and fuzz function in the module's Go files
// (and the JS tests' names in quotes are not counted: rows name Go tests).
func definedTests(t *testing.T, root string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".work" || d.Name() == "bin" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil {
			for _, m := range testFunc.FindAllStringSubmatch(string(b), -1) {
				names[m[1]] = true
			}
		}
		return nil
	})
	return names
}

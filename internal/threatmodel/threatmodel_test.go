package threatmodel

import (
	"go/build/constraint"
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

// definedTests lists every test and fuzz function in the module's Go
// test files that some run of the suite compiles (and the JS tests' names
// in quotes are not counted: rows name Go tests). A file under testdata/
// is never compiled as a test, and one whose build constraint no release
// OS and architecture satisfies (with the test knobs' tag, which make's
// test targets pass) never runs: neither proves a row.
func definedTests(t *testing.T, root string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".work" || d.Name() == "bin" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil && builtByTests(b) {
			for _, m := range testFunc.FindAllStringSubmatch(string(b), -1) {
				names[m[1]] = true
			}
		}
		return nil
	})
	return names
}

// builtByTests reports whether a Go file's //go:build line holds on some
// release OS (linux, darwin, windows, on amd64 or arm64) with the tag
// ctxhook_testhooks: only such a file is compiled by make's tests.
func builtByTests(src []byte) bool {
	var expr constraint.Expr
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "package ") {
			break
		}
		if constraint.IsGoBuild(line) {
			if e, err := constraint.Parse(line); err == nil {
				expr = e
			}
		}
	}
	if expr == nil {
		return true
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		if expr.Eval(func(tag string) bool {
			switch tag {
			case goos, "amd64", "ctxhook_testhooks", "gc":
				return true
			case "unix":
				return goos != "windows"
			}
			return strings.HasPrefix(tag, "go1.")
		}) {
			return true
		}
	}
	return false
}

// TestDefinedTestsCompiled: a test under testdata/ or behind a build tag
// no test run sets does not prove a row; one for one OS or behind the
// test knobs' tag does.
func TestDefinedTestsCompiled(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"testdata/a_test.go": "package x\nfunc TestInTestdata(t *testing.T) { t.Skip() }\n",
		"b_test.go":          "//go:build never\n\npackage x\nfunc TestNeverBuilt(t *testing.T) {}\n",
		"c_test.go":          "//go:build linux && !ctxhook_testhooks\n\npackage x\nfunc TestNotWithTheTag(t *testing.T) {}\n",
		"d_test.go":          "//go:build linux\n\npackage x\nfunc TestLinux(t *testing.T) {}\n",
		"e_test.go":          "//go:build ctxhook_testhooks && unix\n\npackage x\nfunc TestKnobs(t *testing.T) {}\n",
		"f_test.go":          "package x\nfunc TestPlain(t *testing.T) {}\nfunc FuzzPlain(f *testing.F) {}\n",
		"g_test.go":          "//go:build windows\n\npackage x\nfunc TestWindows(t *testing.T) {}\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := definedTests(t, dir)
	var names []string
	for n := range got {
		names = append(names, n)
	}
	if want := "FuzzPlain|TestKnobs|TestLinux|TestPlain|TestWindows"; strings.Join(sorted(names), "|") != want {
		t.Fatalf("defined %v, want %s", sorted(names), want)
	}
}

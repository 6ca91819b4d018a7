package fuzzlist

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestEveryFuzzTargetIsListed: the Makefile's FUZZ_TARGETS names every
// Fuzz function of the module, and nothing else.
func TestEveryFuzzTargetIsListed(t *testing.T) {
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	listed := Listed(mk)
	declared, err := Declared(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(declared) < 40 {
		t.Fatalf("found only %d Fuzz functions: is the walk looking in the module?", len(declared))
	}
	for _, d := range declared {
		if !slices.Contains(listed, d) {
			t.Errorf("%s is declared but not in the Makefile's FUZZ_TARGETS: make fuzz never searches it", d)
		}
	}
	for _, l := range listed {
		if !slices.Contains(declared, l) {
			t.Errorf("FUZZ_TARGETS names %s, which no _test.go declares", l)
		}
	}
}

func TestListed(t *testing.T) {
	mk := []byte("GO ?= go\nFUZZ_TARGETS = \\\n\t./a:FuzzX \\\n\t./b:FuzzY\n\nFUZZ_JOBS ?= 1\nOTHER = ./c:FuzzZ\n")
	got := Listed(mk)
	if want := []string{"./a:FuzzX", "./b:FuzzY"}; !slices.Equal(got, want) {
		t.Errorf("Listed = %q, want %q", got, want)
	}
	if got := Listed([]byte("FUZZ_TARGETS = ./one:FuzzA ./two:FuzzB\n")); len(got) != 2 {
		t.Errorf("one-line list: %q", got)
	}
	if got := Listed([]byte("NO_FUZZ = 1\n")); len(got) != 0 {
		t.Errorf("no list: %q", got)
	}
}

func TestDeclared(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("p/a_test.go", "package p\nfunc FuzzA(f *testing.F) {}\nfunc TestB(t *testing.T) {}\n// func FuzzC(f *testing.F)\n")
	write("p/q/b_test.go", "package q\nfunc FuzzD(f *testing.F) {}\n")
	write("p/testdata/c_test.go", "package c\nfunc FuzzE(f *testing.F) {}\n")
	write("node_modules/x/d_test.go", "package d\nfunc FuzzF(f *testing.F) {}\n")
	write("p/e.go", "package p\nfunc FuzzG(f *testing.F) {}\n")
	got, err := Declared(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"./p/q:FuzzD", "./p:FuzzA"}; !slices.Equal(got, want) {
		t.Errorf("Declared = %q, want %q", got, want)
	}
}

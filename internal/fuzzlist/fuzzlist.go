// Package fuzzlist compares the fuzz targets `make fuzz` runs (the
// Makefile's FUZZ_TARGETS) with the Fuzz functions the code declares.
// Go runs a Fuzz function's seeds with the other tests, but searches
// only the targets it is told of: five were once declared and never
// searched, because the list was kept by hand.
package fuzzlist

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Listed is the "./pkg:FuzzName" entries of the FUZZ_TARGETS variable
// in a Makefile: from its assignment to the first line that does not
// end in a backslash.
func Listed(makefile []byte) []string {
	var out []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(makefile))
	for sc.Scan() {
		line := sc.Text()
		if !in {
			name, _, ok := strings.Cut(line, "=")
			if !ok || strings.TrimSpace(name) != "FUZZ_TARGETS" {
				continue
			}
			in = true
			line = line[len(name)+1:]
		}
		for _, f := range strings.Fields(strings.TrimSuffix(line, "\\")) {
			out = append(out, f)
		}
		if !strings.HasSuffix(line, "\\") {
			break
		}
	}
	sort.Strings(out)
	return out
}

var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz\w*)\(\w+ \*testing\.F\)`)

// Declared is every Fuzz function in the _test.go files under root, as
// "./pkg:FuzzName" with pkg relative to root. Directories Go does not
// build (testdata, dot and underscore names) and node_modules are not
// looked in.
func Declared(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, m := range fuzzFunc.FindAllSubmatch(src, -1) {
			out = append(out, "./"+filepath.ToSlash(rel)+":"+string(m[1]))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

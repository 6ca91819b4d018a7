// Package threatmodel reads docs/threats.md, the table of ctxhook's entry
// points, so that tests next to each kind of entry point (the CLI's
// commands, ctxhook mcp's tools) can fail when one has no row, and a row
// cannot name a test that does not exist.
package threatmodel

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Row is one entry point of the threat model.
type Row struct {
	Entry, Who, Reads, Writes string
	Tests                     []string // the test and fuzz functions named in "proved by"
	Files                     []string // test files or scripts named there (JS tests, shell checks)
}

// Path is docs/threats.md in this checkout.
func Path() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "docs", "threats.md")
}

// Read parses every table row of the document whose first cell is not the
// header's.
func Read(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []Row
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| entry point ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 5 {
			return nil, fmt.Errorf("%s:%d: a row has %d cells, want 5", path, n, len(cells))
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, Row{Entry: cells[0], Who: cells[1], Reads: cells[2], Writes: cells[3], Tests: testNames(cells[4]), Files: testFiles(cells[4])})
	}
	return rows, sc.Err()
}

// testNames picks the Go test and fuzz function names out of a cell.
func testNames(cell string) []string {
	var names []string
	for _, w := range strings.FieldsFunc(cell, func(r rune) bool { return r == ',' || r == ' ' || r == '`' }) {
		if strings.HasPrefix(w, "Test") || strings.HasPrefix(w, "Fuzz") {
			names = append(names, w)
		}
	}
	return names
}

// testFiles picks the paths of test files and scripts out of a cell.
func testFiles(cell string) []string {
	var files []string
	for _, w := range strings.FieldsFunc(cell, func(r rune) bool { return r == ',' || r == ' ' || r == '`' }) {
		if strings.Contains(w, "/") && (strings.HasSuffix(w, ".js") || strings.HasSuffix(w, ".mjs") || strings.HasSuffix(w, ".sh")) {
			files = append(files, w)
		}
	}
	return files
}

// Find returns the row whose entry point is exactly entry (backquotes
// included, as the document writes names).
func Find(rows []Row, entry string) (Row, bool) {
	for _, r := range rows {
		if r.Entry == entry {
			return r, true
		}
	}
	return Row{}, false
}

// Package testdir makes the temporary directories of tests that also run
// under Wine (make wine): what t.TempDir makes, removed file by file.
// Wine 8.0 cannot run os.RemoveAll: Go deletes with
// FileDispositionInformationEx, which Wine answers with a status Go does
// not fall back on ("Invalid function"); os.Remove works.
package testdir

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// New returns a new directory, removed when t ends.
func New(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ctxhook-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Remove(dir) })
	return dir
}

// Remove removes dir and everything under it, deepest first.
func Remove(dir string) {
	var all []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			if d.IsDir() {
				os.Chmod(p, 0o700) // a test may have taken its permissions away
			}
			all = append(all, p)
		}
		return nil
	})
	slices.Reverse(all)
	for _, p := range all {
		os.Remove(p)
	}
}

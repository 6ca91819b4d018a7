package shipper

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/paths"
)

// TestReportOnlyInOwnDir: ship.json is written only into a data
// directory that is the user's alone, never through a link planted at a
// temporary name, and owner-only.
func TestReportOnlyInOwnDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix modes")
	}
	root := t.TempDir()
	outside := filepath.Join(root, "victim")
	os.WriteFile(outside, []byte("untouched"), 0o600)

	open := filepath.Join(root, "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o777) // another user may write here: refused
	if err := writeReport(paths.Paths{Data: open}, Report{Shipped: 1}); err == nil {
		t.Error("wrote into a directory others may write")
	}
	if _, err := os.Stat(filepath.Join(open, "ship.json")); err == nil {
		t.Error("ship.json written into a directory others may write")
	}

	mine := filepath.Join(root, "mine")
	os.Mkdir(mine, 0o700)
	os.Symlink(outside, filepath.Join(mine, "ship.json.tmp"))
	p := paths.Paths{Data: mine}
	if err := writeReport(p, Report{Shipped: 7}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "untouched" {
		t.Errorf("written through a planted link: %q", b)
	}
	r, ok := ReadReport(p)
	if !ok || r.Shipped != 7 {
		t.Errorf("read back %+v %v", r, ok)
	}
	if fi, err := os.Stat(ReportPath(p)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("ship.json: %v %v", fi.Mode(), err)
	}
}

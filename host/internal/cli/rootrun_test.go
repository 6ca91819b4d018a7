//go:build unix

package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRootRunLeavesNothing: a hook run as root with a user's HOME
// (env -i HOME=~user ctxhook hook ...) creates nothing in that user's
// tree, the spool, state and cache included, and still answers; doctor
// names a root-owned spool planted there and the command that mends it.
func TestRootRunLeavesNothing(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the run as root is the point")
	}
	const uid = 65534 // nobody
	home := filepath.Join(t.TempDir(), "home")
	data := filepath.Join(home, ".local", "state", "ctxhook")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	chownAll(t, home, uid)
	e := &testEnv{vars: map[string]string{"HOME": home, "CTXHOOK_NO_DAEMON": "1", "CTXHOOK_HOOK_DEADLINE_MS": "120000"}}
	out, errs, code := e.run(t, read(t, "hook-PostToolUse.json"), "hook", "claude-code", "PostToolUse")
	if code != 0 || !strings.Contains(out, "hookSpecificOutput") {
		t.Fatalf("the hook did not answer: %d %q %s", code, out, errs)
	}
	t.Logf("stderr:\n%s", errs)
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if fi, err := os.Lstat(p); err == nil && fi.Sys().(*syscall.Stat_t).Uid != uid {
			t.Errorf("%s was created as uid %d in a tree of uid %d", p, fi.Sys().(*syscall.Stat_t).Uid, uid)
		}
		return nil
	})

	spool := filepath.Join(data, "spool")
	if err := os.Mkdir(spool, 0o700); err != nil { // what a root run left before
		t.Fatal(err)
	}
	out, _, _ = e.run(t, nil, "doctor", "claude-code")
	if want := "sudo chown -R nobody: " + spool; !strings.Contains(out, want) {
		t.Fatalf("doctor does not name the root-owned spool with %q:\n%s", want, out)
	}
}

func chownAll(t *testing.T, dir string, uid int) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			err = os.Lchown(p, uid, uid)
		}
		if err != nil {
			t.Fatal(err)
		}
		return nil
	})
}

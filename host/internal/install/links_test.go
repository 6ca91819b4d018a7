//go:build unix

package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/internal/testdir"
)

// TestSymlinkedSettings: a settings file that is a symbolic link into a
// dotfiles checkout stays a link through install and uninstall (both the
// byte-for-byte restore and the structural removal after an edit): the
// file it leads to is written, in its own directory, keeping its mode. A
// link ctxhook must not follow (another user's, or into a file another
// user owns or may write) is refused and nothing is written.
func TestSymlinkedSettings(t *testing.T) {
	type layout struct{ link, target string }
	tests := []struct {
		name    string
		link    string                       // the link's text, relative to .claude/ when not absolute
		chain   bool                         // the link leads to a second link, then the file
		hostile func(t *testing.T, l layout) // makes the link one ctxhook must refuse
		edit    bool                         // the user edits the file after install
	}{
		{name: "absolute", link: "ABS"},
		{name: "relative", link: "../dotfiles/claude/settings.json"},
		{name: "chain", link: "ABS", chain: true},
		{name: "edited after install", link: "ABS", edit: true},
		{name: "target writable by others", link: "ABS", hostile: func(t *testing.T, l layout) { os.Chmod(l.target, 0o666) }},
		{name: "link of another user", link: "ABS", hostile: func(t *testing.T, l layout) { chownOther(t, l.link, true) }},
		{name: "target of another user", link: "ABS", hostile: func(t *testing.T, l layout) { chownOther(t, l.target, false) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := testdir.New(t)
			target := filepath.Join(home, "dotfiles", "claude", "settings.json")
			os.MkdirAll(filepath.Dir(target), 0o755)
			os.WriteFile(target, []byte(userSettings), 0o640)
			os.Chmod(target, 0o640)
			path := filepath.Join(home, ".claude", "settings.json")
			os.MkdirAll(filepath.Dir(path), 0o755)
			to := tt.link
			if to == "ABS" {
				to = target
			}
			if tt.chain {
				mid := filepath.Join(home, "dotfiles", "current")
				os.Symlink(target, mid)
				to = mid
			}
			if err := os.Symlink(to, path); err != nil {
				t.Fatal(err)
			}
			if tt.hostile != nil {
				tt.hostile(t, layout{path, target})
				_, err := planAndWrite(t, path, true)
				if err == nil || !strings.Contains(err.Error(), "will not write through") {
					t.Fatalf("install through a hostile link: %v", err)
				}
				assertLink(t, path, to)
				if b, _ := os.ReadFile(target); string(b) != userSettings {
					t.Errorf("the target was written:\n%s", b)
				}
				return
			}
			if _, err := planAndWrite(t, path, true); err != nil {
				t.Fatal(err)
			}
			assertLink(t, path, to)
			if b, _ := os.ReadFile(target); !strings.Contains(string(b), "hook claude-code PreToolUse") {
				t.Fatalf("the target holds no hooks:\n%s", b)
			}
			if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
				t.Errorf("the target's mode is %v", fi.Mode().Perm())
			}
			want := userSettings
			if tt.edit {
				b, _ := os.ReadFile(target)
				os.WriteFile(target, append(b, '\n'), 0o640)
			}
			j := testJournal(t)
			if _, err := j.Restore(false); err != nil {
				t.Fatal(err)
			}
			if _, err := planAndWrite(t, path, false); err != nil {
				t.Fatal(err)
			}
			assertLink(t, path, to)
			b, _ := os.ReadFile(target)
			if (tt.edit && !sameJSON(t, b, []byte(want))) || (!tt.edit && string(b) != want) {
				t.Errorf("after uninstall the target holds\n%s", b)
			}
			for _, dir := range []string{filepath.Dir(path), filepath.Dir(target)} {
				if left, _ := filepath.Glob(filepath.Join(dir, "*.ctxhook-*")); len(left) != 0 {
					t.Errorf("left behind: %v", left)
				}
			}
		})
	}
}

// planAndWrite installs or uninstalls Claude Code's hooks in path, as
// the command does.
func planAndWrite(t *testing.T, path string, install bool) (Plan, error) {
	j := testJournal(t)
	p, err := PlanHooks(Claude, path, "/opt/bin/ctxhook", install, j.Exes(path)...)
	if err != nil {
		return p, err
	}
	return p, j.Write(p, install)
}

func assertLink(t *testing.T, path, to string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is no longer a symbolic link (%v)", path, err)
	}
	if got, _ := os.Readlink(path); got != to {
		t.Errorf("the link leads to %s, not %s", got, to)
	}
}

// chownOther gives path to another user (root only).
func chownOther(t *testing.T, path string, link bool) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	chown := os.Chown
	if link {
		chown = os.Lchown
	}
	if err := chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
}

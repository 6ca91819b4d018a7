package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
)

// TestSettingsWithSecretPrivate: the settings file that holds the hook
// secret (mcp_tool hooks) is made the user's alone (0600), through the
// symbolic link of a dotfiles manager, which stays a link; once
// uninstall took the secret out, the file has its own mode back.
func TestSettingsWithSecretPrivate(t *testing.T) {
	e := newEnv(t)
	e.vars["CTXHOOK_NO_DAEMON"] = "1"
	dotfiles := filepath.Join(e.vars["HOME"], "dotfiles")
	os.MkdirAll(dotfiles, 0o755)
	target := filepath.Join(dotfiles, "claude-settings.json")
	os.WriteFile(target, []byte(`{"theme":"dark"}`), 0o644)
	os.Chmod(target, 0o644)
	settings := filepath.Join(e.vars["HOME"], ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	if err := os.Symlink(target, settings); err != nil {
		t.Fatal(err)
	}
	mode := func() os.FileMode {
		fi, err := os.Lstat(settings)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a link: %v %v", settings, fi, err)
		}
		fi, _ = os.Stat(target)
		return fi.Mode().Perm()
	}
	for _, step := range []struct {
		args []string
		want os.FileMode
	}{
		{[]string{"install", "claude-code"}, 0o644},
		{[]string{"install", "claude-code", "--hook-type", "mcp_tool"}, 0o600},
		{[]string{"install", "claude-code", "--hook-type", "command"}, 0o644},
		{[]string{"install", "claude-code", "--hook-type", "mcp_tool"}, 0o600},
		{[]string{"uninstall", "claude-code"}, 0o644},
	} {
		if out, errs, code := e.run(t, nil, step.args...); code != 0 {
			t.Fatalf("%v: %d\n%s%s", step.args, code, out, errs)
		}
		if b, _ := os.ReadFile(target); mode() != step.want {
			t.Errorf("after %v the settings file is %v, want %v (secret in it: %v)", step.args, mode(), step.want,
				bytes.Contains(b, []byte(hooksecret.Field)))
		}
	}
}

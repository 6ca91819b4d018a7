//go:build !windows

package paths

import (
	"github.com/ctxhook/ctxhook/internal/testdir"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestResolve(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want Paths
	}{
		{"home only", map[string]string{"HOME": "/h"},
			Paths{"/h/.local/state/ctxhook", "/h/.cache/ctxhook", "/h/.config/ctxhook/config.toml"}},
		{"xdg", map[string]string{"HOME": "/h", "XDG_STATE_HOME": "/s", "XDG_CONFIG_HOME": "/c", "XDG_CACHE_HOME": "/k"},
			Paths{"/s/ctxhook", "/k/ctxhook", "/c/ctxhook/config.toml"}},
		{"ctxhook home wins", map[string]string{"HOME": "/h", "XDG_STATE_HOME": "/s", "CTXHOOK_HOME": "/x"},
			Paths{"/x/state", "/x/cache", "/x/config/config.toml"}},
		// Relative XDG paths are invalid (the specification) and ignored:
		// taken as they were, the store landed in the hook's directory.
		{"relative xdg ignored", map[string]string{"HOME": "/h", "XDG_STATE_HOME": "state", "XDG_CONFIG_HOME": "./c", "XDG_CACHE_HOME": "../k"},
			Paths{"/h/.local/state/ctxhook", "/h/.cache/ctxhook", "/h/.config/ctxhook/config.toml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(func(k string) string { return tt.env[k] })
			if err != nil || got != tt.want {
				t.Fatalf("Resolve = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestEnsureDirIgnoresUmask(t *testing.T) {
	// An existing directory of ctxhook's (an older release made it 0777).
	dir := filepath.Join(testdir.New(t), "ctxhook", "b")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode = %v, %v", fi.Mode(), err)
	}
}

// TestEnsureDirLeavesOthersAlone: a directory ctxhook did not make and
// that is not named for it (the /tmp of a store opened at /tmp/x.db, a
// home) keeps its mode; what EnsureDir creates under it is 0700.
func TestEnsureDirLeavesOthersAlone(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("modes and the sticky bit are Unix's; Windows directories are made owner-only by their ACL (package owned)")
	}
	// t.TempDir, not testdir: testdir's name begins with ctxhook.
	shared := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(shared, 0o755)
	os.Chmod(shared, 0o755|os.ModeSticky)
	EnsureDir(shared) // refused or not: its mode stays
	if fi, _ := os.Stat(shared); fi.Mode().Perm() != 0o755 || fi.Mode()&os.ModeSticky == 0 {
		t.Fatalf("EnsureDir changed a directory that is not ctxhook's: %v", fi.Mode())
	}
	mine := filepath.Join(shared, "new", "leaf")
	if err := EnsureDir(mine); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Dir(mine), mine} {
		if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", d, fi.Mode())
		}
	}
	if fi, _ := os.Stat(shared); fi.Mode().Perm() != 0o755 {
		t.Errorf("the parent's mode changed: %v", fi.Mode())
	}
}

func TestRelativeHome(t *testing.T) {
	if _, err := Resolve(func(k string) string { return map[string]string{"HOME": "h"}[k] }); err == nil {
		t.Fatal("a relative HOME was accepted")
	}
}

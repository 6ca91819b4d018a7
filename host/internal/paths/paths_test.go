//go:build !windows

package paths

import (
	"github.com/ctxhook/ctxhook/internal/testdir"
	"os"
	"path/filepath"
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
	dir := filepath.Join(testdir.New(t), "a", "b")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode = %v, %v", fi.Mode(), err)
	}
}

func TestRelativeHome(t *testing.T) {
	if _, err := Resolve(func(k string) string { return map[string]string{"HOME": "h"}[k] }); err == nil {
		t.Fatal("a relative HOME was accepted")
	}
}

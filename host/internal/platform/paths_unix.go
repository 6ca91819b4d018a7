//go:build !windows

package platform

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DefaultDirs are the XDG base directories, on Linux and on macOS alike
// (as gh, git and most command-line tools use them there too, rather than
// ~/Library): data in $XDG_STATE_HOME/ctxhook (~/.local/state/ctxhook),
// cache in $XDG_CACHE_HOME/ctxhook (~/.cache/ctxhook), config in
// $XDG_CONFIG_HOME/ctxhook/config.toml (~/.config/ctxhook).
func DefaultDirs(getenv func(string) string) (DefaultPaths, error) {
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return DefaultPaths{}, errors.New("paths: neither CTXHOOK_HOME nor HOME is set")
		}
	}
	if !filepath.IsAbs(home) {
		return DefaultPaths{}, fmt.Errorf("paths: HOME is not an absolute path (%q)", home)
	}
	// The XDG base directory specification: a relative path in these
	// variables is invalid and ignored. Taken as it is, it put the store
	// in whatever directory a hook ran in (the project) and the daemon's
	// in the root directory.
	xdg := func(name string, def ...string) string {
		if v := getenv(name); filepath.IsAbs(v) {
			return v
		}
		return filepath.Join(append([]string{home}, def...)...)
	}
	state := xdg("XDG_STATE_HOME", ".local", "state")
	cfg := xdg("XDG_CONFIG_HOME", ".config")
	cache := xdg("XDG_CACHE_HOME", ".cache")
	return DefaultPaths{
		Data:   filepath.Join(state, "ctxhook"),
		Cache:  filepath.Join(cache, "ctxhook"),
		Config: filepath.Join(cfg, "ctxhook", "config.toml"),
	}, nil
}

package platform

import (
	"errors"
	"path/filepath"
)

// DefaultDirs are Windows' own places: data and cache under %LOCALAPPDATA%
// (this machine's, not roamed), the config under %APPDATA% (roamed with
// the user): %LOCALAPPDATA%\ctxhook\state, %LOCALAPPDATA%\ctxhook\cache,
// %APPDATA%\ctxhook\config.toml.
func DefaultDirs(getenv func(string) string) (DefaultPaths, error) {
	local, roaming := getenv("LOCALAPPDATA"), getenv("APPDATA")
	if profile := getenv("USERPROFILE"); profile != "" {
		if !filepath.IsAbs(local) {
			local = filepath.Join(profile, "AppData", "Local")
		}
		if !filepath.IsAbs(roaming) {
			roaming = filepath.Join(profile, "AppData", "Roaming")
		}
	}
	if !filepath.IsAbs(local) || !filepath.IsAbs(roaming) {
		return DefaultPaths{}, errors.New("paths: neither CTXHOOK_HOME nor LOCALAPPDATA/APPDATA (or USERPROFILE) is set")
	}
	return DefaultPaths{
		Data:   filepath.Join(local, "ctxhook", "state"),
		Cache:  filepath.Join(local, "ctxhook", "cache"),
		Config: filepath.Join(roaming, "ctxhook", "config.toml"),
	}, nil
}

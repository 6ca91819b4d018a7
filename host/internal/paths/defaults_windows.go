package paths

import (
	"errors"
	"path/filepath"
)

// defaults are Windows' own places: data and cache under %LOCALAPPDATA%
// (this machine's, not roamed), the config under %APPDATA% (roamed with
// the user): %LOCALAPPDATA%\ctxhook\state, %LOCALAPPDATA%\ctxhook\cache,
// %APPDATA%\ctxhook\config.toml.
func defaults(getenv func(string) string) (Paths, error) {
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
		return Paths{}, errors.New("paths: neither CTXHOOK_HOME nor LOCALAPPDATA/APPDATA (or USERPROFILE) is set")
	}
	return Paths{
		Data:   filepath.Join(local, "ctxhook", "state"),
		Cache:  filepath.Join(local, "ctxhook", "cache"),
		Config: filepath.Join(roaming, "ctxhook", "config.toml"),
	}, nil
}

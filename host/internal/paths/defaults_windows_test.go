package paths

import (
	"testing"
)

// TestWindowsDefaults: data and cache under %LOCALAPPDATA%, the config
// under %APPDATA%, both found from %USERPROFILE% when unset; CTXHOOK_HOME
// moves all three.
func TestWindowsDefaults(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  map[string]string
		want Paths
	}{
		{"app data", map[string]string{"LOCALAPPDATA": `C:\Users\a\AppData\Local`, "APPDATA": `C:\Users\a\AppData\Roaming`},
			Paths{`C:\Users\a\AppData\Local\ctxhook\state`, `C:\Users\a\AppData\Local\ctxhook\cache`, `C:\Users\a\AppData\Roaming\ctxhook\config.toml`}},
		{"profile only", map[string]string{"USERPROFILE": `C:\Users\b`},
			Paths{`C:\Users\b\AppData\Local\ctxhook\state`, `C:\Users\b\AppData\Local\ctxhook\cache`, `C:\Users\b\AppData\Roaming\ctxhook\config.toml`}},
		{"ctxhook home", map[string]string{"CTXHOOK_HOME": `D:\ch`, "LOCALAPPDATA": `C:\x`},
			Paths{`D:\ch\state`, `D:\ch\cache`, `D:\ch\config\config.toml`}},
	} {
		got, err := Resolve(func(k string) string { return tt.env[k] })
		if err != nil || got != tt.want {
			t.Errorf("%s: %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
	if _, err := Resolve(func(string) string { return "" }); err == nil {
		t.Error("no environment at all was accepted")
	}
}

//go:build !ctxhook_testhooks

package testhooks

// Enabled says whether this build reads the knobs.
const Enabled = false

// PluginWasm is nil: a release build always runs the embedded plugin.
func PluginWasm(func(string) string) ([]byte, error) { return nil, nil }

// DaemonKnobs is the zero Daemon: a release daemon keeps its defaults.
func DaemonKnobs(func(string) string) Daemon { return Daemon{} }

// CompileLog is "": a release build logs no compilation.
func CompileLog() string { return "" }

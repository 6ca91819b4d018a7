//go:build ctxhook_testhooks

package testhooks

import (
	"os"
	"strconv"
	"time"
)

// Enabled says whether this build reads the knobs.
const Enabled = true

// PluginWasm is the module CTXHOOK_TEST_PLUGIN names, to load instead of
// the embedded plugin (a plugin that traps, loops or spins), or nil.
func PluginWasm(getenv func(string) string) ([]byte, error) {
	f := getenv("CTXHOOK_TEST_PLUGIN")
	if f == "" {
		return nil, nil
	}
	return os.ReadFile(f)
}

// DaemonKnobs reads CTXHOOK_DAEMON_TEST_BUILD_ID, _DELAY_MS, _IN_FLIGHT
// and _WATCHDOG_MS.
func DaemonKnobs(getenv func(string) string) Daemon {
	d := Daemon{BuildID: getenv("CTXHOOK_DAEMON_TEST_BUILD_ID")}
	if ms, err := strconv.Atoi(getenv("CTXHOOK_DAEMON_TEST_DELAY_MS")); err == nil {
		d.Delay = time.Duration(ms) * time.Millisecond
	}
	if n, err := strconv.ParseInt(getenv("CTXHOOK_DAEMON_TEST_IN_FLIGHT"), 10, 64); err == nil && n > 0 {
		d.InFlight = n
	}
	if ms, err := strconv.Atoi(getenv("CTXHOOK_DAEMON_TEST_WATCHDOG_MS")); err == nil && ms > 0 {
		d.Watchdog = time.Duration(ms) * time.Millisecond
	}
	return d
}

// CompileLog is the file CTXHOOK_TEST_COMPILE_LOG names, to which each
// compilation of the plugin appends a line (the cold-start tests count
// compilations across processes), or "".
func CompileLog() string { return os.Getenv("CTXHOOK_TEST_COMPILE_LOG") }

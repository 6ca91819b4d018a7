// Package childenv builds the environment of a process ctxhook starts
// on a command's behalf: the daemon, a detached replay, a hook finished
// late, an MCP server that doctor probes.
//
// A command reads its environment through a getenv function, which a
// long-lived host's request or a test sets apart from the process's own.
// A child started with the process's own environment then served
// another home than the command it was started for: an in-process
// `ctxhook mcp` spawned a daemon for the user's real state directory.
// So a child gets the process's environment with each variable the
// command sees overlaid.
package childenv

import (
	"os"
	"strings"
)

// Keys are the variables a child is given from getenv even where the
// process's own environment lacks them: those that say where ctxhook
// keeps its files, how long a hook may take, and whether a daemon runs.
var Keys = []string{
	"HOME", "PATH", "USERPROFILE", "LOCALAPPDATA", "APPDATA", "TMPDIR",
	"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
	"CLAUDE_CONFIG_DIR",
	"CTXHOOK_HOME", "CTXHOOK_NO_DAEMON", "CTXHOOK_HOOK_DEADLINE_MS", "CTXHOOK_DAEMON_IDLE", "CTXHOOK_STORE_URL",
}

// Overlay is base with each of its variables that getenv has set to
// getenv's value, and each of Keys that getenv has and base lacks
// added. A variable getenv has empty keeps base's value: a lookup
// cannot tell empty from unset.
func Overlay(base []string, getenv func(string) string) []string {
	seen := make(map[string]bool, len(base))
	out := make([]string, 0, len(base)+len(Keys))
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		seen[k] = true
		if g := getenv(k); g != "" {
			v = g
		}
		out = append(out, k+"="+v)
	}
	for _, k := range Keys {
		if v := getenv(k); v != "" && !seen[k] {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// Of is Overlay on this process's environment.
func Of(getenv func(string) string) []string { return Overlay(os.Environ(), getenv) }

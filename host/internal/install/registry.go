package install

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Where a harness keeps its files comes from its registry entry
// (harness-configs/harnesses.json): one resolver reads every harness's
// paths, so a new harness adds data, not a case here.

// ConfigDir returns the harness's configuration directory for a scope:
// "user" (under the home or XDG config directory, or where the
// harness's own environment variable points) or "project" (under dir).
func (h Harness) ConfigDir(scope string, getenv func(string) string, dir string) (string, error) {
	switch scope {
	case "user":
		if d := getenv(h.Dir.Env); h.Dir.Env != "" && d != "" {
			if rest, ok := strings.CutPrefix(d, "~"); h.Dir.EnvTilde && ok && (rest == "" || rest[0] == '/' || rest[0] == filepath.Separator) {
				return userPath("~"+rest, getenv)
			}
			return d, nil
		}
		return userPath(h.Dir.User, getenv)
	case "project":
		if h.Dir.Project == "" {
			return "", fmt.Errorf("install: %s keeps no configuration in a project", h.Title)
		}
		return filepath.Join(dir, h.Dir.Project), nil
	}
	return "", fmt.Errorf("install: unknown scope %q (want user or project)", scope)
}

// userPath resolves a registry path of the user scope: "~/..." under the
// home directory, "$XDG_CONFIG_HOME/..." under the XDG config directory
// (~/.config when the variable is unset).
func userPath(spec string, getenv func(string) string) (string, error) {
	if rest, ok := strings.CutPrefix(spec, "$XDG_CONFIG_HOME"); ok {
		if x := getenv("XDG_CONFIG_HOME"); x != "" {
			return filepath.Join(x, rest), nil
		}
		spec = "~/.config" + rest
	}
	rest, ok := strings.CutPrefix(spec, "~")
	if !ok {
		return "", fmt.Errorf("install: registry path %q is neither ~/ nor $XDG_CONFIG_HOME/", spec)
	}
	home := Home(getenv)
	if home == "" {
		return "", errors.New("install: HOME is not set")
	}
	return filepath.Join(home, rest), nil
}

// scopedPath resolves a registry path of a scope: "{dir}/<file>" in the
// harness's directory for it, else a user path, or a project path
// relative to dir.
func (h Harness) scopedPath(spec, scope string, getenv func(string) string, dir string) (string, error) {
	if rest, ok := strings.CutPrefix(spec, "{dir}/"); ok {
		d, err := h.ConfigDir(scope, getenv, dir)
		if err != nil {
			return "", err
		}
		return filepath.Join(d, rest), nil
	}
	if scope == "user" {
		return userPath(spec, getenv)
	}
	return filepath.Join(dir, spec), nil
}

// HooksPath returns the file a hook-file harness reads hooks from, for a
// scope.
func (h Harness) HooksPath(scope string, getenv func(string) string, dir string) (string, error) {
	if h.HooksFile == "" {
		return "", fmt.Errorf("install: %s reads no hooks file", h.Title)
	}
	d, err := h.ConfigDir(scope, getenv, dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, h.HooksFile), nil
}

// mcpFormat is the shape of a harness's MCP config: the key path to its
// servers and ctxhook's entry there.
type mcpFormat struct {
	keys  []string
	entry func(exe string) any
}

// mcpFormats are the JSON formats of MCP configs the registry names.
// "codex-toml" (Codex's config.toml) is written by PlanTOMLMCP.
var mcpFormats = map[string]mcpFormat{
	"mcpServers":       {[]string{"mcpServers"}, stdioEntry(false)},
	"mcpServers-typed": {[]string{"mcpServers"}, stdioEntry(true)},
	// A local server with every tool enabled.
	"mcpServers-local": {[]string{"mcpServers"}, func(exe string) any {
		return map[string]any{"type": "local", "command": exe, "args": []string{"mcp"}, "tools": []string{"*"}}
	}},
	// A server whose tools reach the model by name ("exposure": "direct";
	// Pi's default hands it one scripting tool).
	"mcpServers-direct": {[]string{"mcpServers"}, func(exe string) any {
		return map[string]any{"command": exe, "args": []string{"mcp"}, "exposure": "direct"}
	}},
	// OpenClaw's "mcp": {"servers": {...}}.
	"mcp-servers": {[]string{"mcp", "servers"}, stdioEntry(false)},
	// OpenCode's "mcp" object: the command as an argv.
	"mcp-local": {[]string{"mcp"}, func(exe string) any {
		return map[string]any{"type": "local", "command": []string{exe, "mcp"}, "enabled": true}
	}},
}

// MCPFormatTOML is the registry's name for Codex's config.toml.
const MCPFormatTOML = "codex-toml"

func stdioEntry(typed bool) func(string) any {
	return func(exe string) any {
		e := map[string]any{"command": exe, "args": []string{"mcp"}}
		if typed {
			e["type"] = "stdio"
		}
		return e
	}
}

// MCPConfigPath returns the file where a harness lists MCP servers for
// a scope (whatever its format).
func (h Harness) MCPConfigPath(scope string, getenv func(string) string, dir string) (string, error) {
	spec := h.MCP.User
	if scope == "project" {
		spec = h.MCP.Project
	}
	if spec == "" {
		return "", fmt.Errorf("install: %s has no MCP config for the %s scope", h.Title, scope)
	}
	return h.scopedPath(spec, scope, getenv, dir)
}

// MCPEntryFor returns where ctxhook's MCP server goes for a harness and
// scope; ok is false for a harness whose servers are not in a JSON
// format of mcpFormats (Codex CLI's TOML: see PlanTOMLMCP).
func MCPEntryFor(h Harness, scope string, getenv func(string) string, dir string) (MCPEntry, bool) {
	f, ok := mcpFormats[h.MCP.Format]
	if !ok {
		return MCPEntry{}, false
	}
	p, err := h.MCPConfigPath(scope, getenv, dir)
	if err != nil {
		return MCPEntry{}, false
	}
	return MCPEntry{p, f.keys, f.entry}, true
}

// MCPTargets lists where --wrap-mcp rewrites a harness's MCP servers:
// where ctxhook's own server goes, and in the user scope the servers
// the harness keeps per project ({cwd}: dir). None for a harness whose
// hooks see result _meta (the relay needs no proxy there).
func MCPTargets(h Harness, scope string, getenv func(string) string, dir string) []MCPTarget {
	if !h.MCP.Wrap {
		return nil
	}
	m, ok := MCPEntryFor(h, scope, getenv, dir)
	if !ok {
		return nil
	}
	out := []MCPTarget{{Path: m.Path, Keys: m.Keys}}
	if scope == "user" && len(h.MCP.LocalServers) > 0 {
		var keys []string
		for _, k := range h.MCP.LocalServers {
			keys = append(keys, strings.ReplaceAll(k, "{cwd}", dir))
		}
		out = append(out, MCPTarget{Path: m.Path, Keys: keys})
	}
	return out
}

package install

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	harnessconfigs "github.com/ctxhook/ctxhook/harness-configs"
	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
)

// ourHooks is every hook handler and status line ctxhook writes into a
// harness's hooks file for a set of ctxhook binaries: the commands of
// each of the harness's templates (command and mcp_tool hooks) filled in
// for each binary, with and without its hook client. A handler is
// ctxhook's only when it is one of these exactly: a user's own hook that
// merely mentions ctxhook (`sh -c 'logger ctxhook hook claude-code …'`,
// a script of their own named ctxhook-hook) is theirs, and install,
// uninstall and doctor leave it alone.
type ourHooks struct {
	commands    map[string]bool // "command" of a command handler
	mcpTools    map[string]bool // mcpKey of an mcp_tool handler
	statusLines map[string]bool // statusLine "command"
}

// ours lists what ctxhook writes for the binaries exes: the running one
// first, then the ones the journal says it wrote before. The bare name a
// project's files use is always among them.
func (h Harness) ours(exes []string) (ourHooks, error) {
	o := ourHooks{commands: map[string]bool{}, mcpTools: map[string]bool{}, statusLines: map[string]bool{}}
	seen := map[string]bool{}
	for _, exe := range append(slices.Clone(exes), PortableExe) {
		if exe == "" || seen[exe] {
			continue
		}
		seen[exe] = true
		for _, file := range h.templates() {
			b, err := harnessconfigs.FS.ReadFile(file)
			if err != nil {
				return o, fmt.Errorf("install: %w", err)
			}
			for _, client := range []string{"", clientOf(exe)} {
				if err := o.add(h, fill(b, exe, client)); err != nil {
					return o, fmt.Errorf("install: template %s: %w", file, err)
				}
			}
		}
	}
	return o, nil
}

// templates are the harness's hooks templates, each form install writes
// (Claude Code's commands and its mcp_tool hooks).
func (h Harness) templates() []string {
	r, ok := harnessconfigs.Lookup(h.Name)
	if !ok {
		r = h.Harness
	}
	var out []string
	for _, f := range []string{r.Hooks, r.MCPToolHooks} {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// clientOf is the hook client template() names for exe when it exists:
// ctxhook-hook beside it, or by name for a project's files.
func clientOf(exe string) string {
	if exe == PortableExe {
		return PortableExe + "-hook"
	}
	return filepath.Join(filepath.Dir(exe), "ctxhook-hook"+exeSuffix)
}

// add records the handlers and status line of one filled template.
func (o ourHooks) add(h Harness, b []byte) error {
	var t struct {
		StatusLine struct{ Command string } `json:"statusLine"`
		Hooks      map[string][]json.RawMessage
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return err
	}
	if t.StatusLine.Command != "" {
		o.statusLines[t.StatusLine.Command] = true
	}
	for _, entries := range t.Hooks {
		for _, e := range entries {
			for _, hd := range handlersOf(h, e) {
				var x handler
				if err := json.Unmarshal(hd, &x); err != nil {
					return err
				}
				if x.Type == "mcp_tool" {
					o.mcpTools[x.mcpKey()] = true
				} else {
					o.commands[x.Command] = true
				}
			}
		}
	}
	return nil
}

// handlersOf lists an event entry's handlers: the entry itself in a flat
// file (Cursor), else its matcher group's "hooks".
func handlersOf(h Harness, entry json.RawMessage) []json.RawMessage {
	if h.Flat {
		return []json.RawMessage{entry}
	}
	var g struct {
		Hooks []json.RawMessage `json:"hooks"`
	}
	json.Unmarshal(entry, &g)
	return g.Hooks
}

// handler is what tells a hook handler's owner: the command it runs, or
// the MCP tool it calls with which input.
type handler struct {
	Type, Command, Server, Tool string
	Input                       map[string]any
}

// mcpKey identifies an mcp_tool handler by server, tool and input (the
// input install writes tells ctxhook's from a user's hook calling a tool
// of that name). Map keys are encoded sorted: the key ignores order. The
// hook secret is left out: its value differs per install (the templates
// hold a placeholder), and hooks written before it existed lack it.
func (x handler) mcpKey() string {
	in := maps.Clone(x.Input)
	delete(in, hooksecret.Field)
	b, _ := json.Marshal(in)
	return x.Server + "\x00" + x.Tool + "\x00" + string(b)
}

// handler reports whether a hook handler is ctxhook's, and names it (for
// doctor).
func (o ourHooks) handler(raw json.RawMessage) (ok bool, what string) {
	var x handler
	if json.Unmarshal(raw, &x) != nil {
		return false, ""
	}
	if x.Type == "mcp_tool" {
		return o.mcpTools[x.mcpKey()], "mcp_tool " + x.Server + "/" + x.Tool
	}
	return o.commands[x.Command], x.Command
}

// statusLine reports whether a statusLine setting is one install wrote.
func (o ourHooks) statusLine(raw json.RawMessage) bool {
	var sl struct{ Type, Command string }
	return json.Unmarshal(raw, &sl) == nil && sl.Type == "command" && o.statusLines[sl.Command]
}

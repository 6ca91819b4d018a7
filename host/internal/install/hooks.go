// Package install wires ctxhook into a harness's configuration and takes it
// out again.
//
// Guarantees, for every harness: install is idempotent (a second run changes
// no byte); the user's own hooks and settings are never dropped or
// reordered; the file as it was is kept in ctxhook's own data directory
// (Journal), never beside it; uninstall puts back byte for byte a file
// nobody changed since, and otherwise removes exactly the entries install
// added.
package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	harnessconfigs "github.com/ctxhook/ctxhook/harness-configs"
	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
)

// Harness describes how one harness keeps its command hooks. The units,
// matchers and event names each harness wants live in its template under
// harness-configs/, so they are encoded once, not in the user's head.
type Harness struct {
	harnessconfigs.Harness
	// Secret is the per-install hook secret (hooksecret) written into
	// Claude Code's mcp_tool hooks; see WithMCPToolHooks.
	Secret string
}

func byName(name string) Harness {
	h, ok := harnessconfigs.Lookup(name)
	if !ok {
		panic("install: no harness " + name + " in harness-configs/harnesses.json")
	}
	return Harness{Harness: h}
}

// The harnesses whose install differs, named for that code.
var (
	Claude  = byName("claude-code")
	Codex   = byName("codex")
	Gemini  = byName("gemini")
	Cursor  = byName("cursor")
	Droid   = byName("droid")
	Copilot = byName("copilot")
	Qwen    = byName("qwen")
	Auggie  = byName("auggie")
	// OpenCode runs ctxhook in-process as a plugin file, not as hook
	// commands: see opencode.go. It has no hooks template.
	OpenCode = byName("opencode")
)

// Lookup finds any harness install knows, the plugin kind included.
func Lookup(name string) (Harness, bool) {
	h, ok := harnessconfigs.Lookup(name)
	return Harness{Harness: h}, ok
}

// Events lists the events ctxhook wires for the harness, in order.
func (h Harness) Events() []string {
	tmpl, _, err := h.template("ctxhook")
	if err != nil {
		return nil
	}
	return tmpl.keys
}

// Plan is the outcome of an install or uninstall computed without writing.
type Plan struct {
	Path    string
	Before  []byte // nil when the file does not exist
	After   []byte
	Changed bool
	// Exe is the ctxhook binary an install names in the file: the
	// journal remembers it, to know its hooks after the binary moved.
	Exe     string
	Added   int // hook entries written by ctxhook
	Removed int // hook entries of ctxhook's removed
	// Mode is a new file's mode (0: 0644); an existing file keeps its own.
	Mode fs.FileMode
}

// PlanHooks computes the harness's hooks file with ctxhook's hooks
// (install=true) or without them (install=false). exe is the ctxhook
// binary's path; known are the other binaries install wrote into the
// file before (Journal.Exes), so that the hooks of a binary that moved
// are replaced, not doubled. Only a handler exactly as ctxhook writes
// it for one of them is ctxhook's (ours).
func PlanHooks(h Harness, path, exe string, install bool, known ...string) (Plan, error) {
	p := Plan{Path: path, Exe: exe}
	ours, err := h.ours(append([]string{exe}, known...))
	if err != nil {
		return p, err
	}
	before, settings, err := loadJSON(path)
	if err != nil {
		return p, err
	}
	p.Before = before
	hooks := newObject()
	if raw, ok := settings.get("hooks"); ok {
		if hooks, err = parseObject(raw); err != nil {
			return p, fmt.Errorf("install: %s: \"hooks\" is not an object (%v); nothing was changed", path, err)
		}
	}
	// Always remove first: a re-install after the binary moved rewrites the
	// command instead of adding a second copy.
	if p.Removed, err = h.removeOurs(hooks, ours, path); err != nil {
		return p, err
	}
	if install {
		if p.Added, err = h.addOurs(settings, hooks, ours, exe, path); err != nil {
			return p, err
		}
	}
	if cur, ok := settings.get("statusLine"); !install && ok && ours.statusLine(cur) {
		settings.del("statusLine")
	}
	if hooks.len() == 0 {
		settings.del("hooks")
	} else {
		settings.set("hooks", hooks.raw())
	}
	after, err := settings.pretty(before)
	if err != nil {
		return p, fmt.Errorf("install: %w", err)
	}
	if p.Before == nil && !install {
		after = nil // nothing to uninstall from a file that does not exist
	}
	p.After = after
	p.Changed = !bytes.Equal(p.Before, p.After) && !(p.Before == nil && p.After == nil)
	if p.Before != nil {
		// Idempotence is judged on content: a file that already holds
		// exactly our hooks (or, to uninstall, none of them) is left alone
		// even if its formatting differs.
		if o, err := parseObject(p.Before); err == nil && bytes.Equal(o.normal(), settings.normal()) {
			p.Changed, p.After = false, p.Before
		}
	}
	return p, nil
}

// removeOurs takes ctxhook's handlers out of every event of hooks, and
// the events left empty by that; it returns how many it removed.
func (h Harness) removeOurs(hooks *object, ours ourHooks, path string) (int, error) {
	n := 0
	for _, ev := range append([]string(nil), hooks.keys...) {
		groups, removed, err := h.withoutOurs(hooks.vals[ev], ours)
		if err != nil {
			return n, fmt.Errorf("install: %s: hooks.%s: %v; nothing was changed", path, ev, err)
		}
		n += removed
		if removed == 0 {
			continue
		}
		if len(groups) == 0 {
			hooks.del(ev)
		} else {
			hooks.set(ev, mustRaw(groups))
		}
	}
	return n, nil
}

// addOurs appends the template's handlers to each of its events in
// hooks, and its other top-level keys to settings; it returns how many
// handlers it added.
func (h Harness) addOurs(settings, hooks *object, ours ourHooks, exe, path string) (int, error) {
	tmpl, top, err := h.template(exe)
	if err != nil {
		return 0, err
	}
	if bytes.Contains(tmpl.raw(), []byte(hooksecret.Placeholder)) {
		return 0, fmt.Errorf("install: %s: the hooks need ctxhook's hook secret, and none was made; nothing was changed", path)
	}
	// Keys beside hooks are added when missing and never changed: the
	// user's own status line stays. Cursor's "version" is kept on
	// uninstall too; ctxhook's own (Claude Code's statusLine, which
	// names the binary) goes when it is still as install wrote it.
	for _, k := range top.keys {
		if cur, ok := settings.get(k); k != "hooks" && (!ok || ours.statusLine(cur)) {
			settings.set(k, top.vals[k]) // ctxhook's own is rewritten, as its hooks are
		}
	}
	added := 0
	for _, ev := range tmpl.keys {
		var mine []json.RawMessage
		json.Unmarshal(tmpl.vals[ev], &mine)
		var groups []json.RawMessage
		if raw, ok := hooks.get(ev); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return 0, fmt.Errorf("install: %s: hooks.%s is not a list; nothing was changed", path, ev)
			}
		}
		hooks.set(ev, mustRaw(append(groups, mine...)))
		added += len(mine)
	}
	return added, nil
}

// loadJSON reads a JSON config file as an object; a missing file is an
// empty object with before nil.
func loadJSON(path string) (before []byte, root *object, err error) {
	before, err = os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("install: %w", err)
	}
	if err != nil {
		before = nil
	}
	root, err = parseObject(before)
	if err != nil {
		return nil, nil, fmt.Errorf("install: %s is not valid JSON (%v); fix or move it, nothing was changed", path, err)
	}
	return before, root, nil
}

// template returns ctxhook's hooks for the harness (and the template's
// whole top-level object) with exe filled in.
func (h Harness) template(exe string) (hooks, top *object, err error) {
	b, err := harnessconfigs.FS.ReadFile(h.Hooks)
	if err != nil {
		return nil, nil, fmt.Errorf("install: %w", err)
	}
	// With the hook client installed next to ctxhook, hooks run it: the
	// same arguments, answered by the warm daemon.
	client := HookClient(exe)
	if exe == PortableExe {
		// A shared file names the hook client by name too, when this
		// user has one (it is installed with ctxhook).
		if self, err := os.Executable(); err == nil && HookClient(self) != "" {
			client = PortableExe + "-hook"
		}
	}
	b = fill(b, exe, client)
	if h.Secret != "" {
		esc, _ := json.Marshal(h.Secret)
		b = bytes.ReplaceAll(b, []byte(hooksecret.Placeholder), esc[1:len(esc)-1])
	}
	root, err := parseObject(b)
	if err != nil {
		return nil, nil, fmt.Errorf("install: template: %w", err)
	}
	raw, _ := root.get("hooks")
	hooks, err = parseObject(raw)
	return hooks, root, err
}

// fill puts the binaries into a template: the hook client, when there is
// one, for "{{CTXHOOK}} hook ", and exe for the rest. Commands are JSON
// strings: the shell-quoted paths go in JSON-escaped.
func fill(b []byte, exe, client string) []byte {
	if client != "" {
		esc, _ := json.Marshal(ShellQuote(client))
		b = bytes.ReplaceAll(b, []byte(harnessconfigs.Placeholder+" hook "), append(esc[1:len(esc)-1], ' '))
	}
	esc, _ := json.Marshal(ShellQuote(exe))
	return bytes.ReplaceAll(b, []byte(harnessconfigs.Placeholder), esc[1:len(esc)-1])
}

// withoutOurs removes ctxhook's handlers from one event's matcher groups and
// drops groups left empty by that. User handlers are kept byte for byte.
func (h Harness) withoutOurs(raw json.RawMessage, ours ourHooks) (groups []json.RawMessage, removed int, err error) {
	if err := json.Unmarshal(raw, &groups); err != nil {
		return nil, 0, errors.New("not a list")
	}
	out := groups[:0:0]
	if h.Flat {
		for _, g := range groups {
			if ok, _ := ours.handler(g); ok {
				removed++
				continue
			}
			out = append(out, g)
		}
		return out, removed, nil
	}
	for _, g := range groups {
		group, err := parseObject(g)
		if err != nil {
			out = append(out, g)
			continue
		}
		hraw, ok := group.get("hooks")
		var handlers []json.RawMessage
		if !ok || json.Unmarshal(hraw, &handlers) != nil {
			out = append(out, g)
			continue
		}
		kept := handlers[:0:0]
		for _, hd := range handlers {
			if ok, _ := ours.handler(hd); ok {
				removed++
				continue
			}
			kept = append(kept, hd)
		}
		if len(kept) == len(handlers) {
			out = append(out, g)
			continue
		}
		if len(kept) == 0 {
			continue
		}
		group.set("hooks", mustRaw(kept))
		out = append(out, group.raw())
	}
	return out, removed, nil
}

// Home is the user's home directory, where the harnesses keep their user
// settings (~/.claude, ~/.codex, ~/.gemini, ~/.cursor): $HOME, or on
// Windows, where HOME is not set, %USERPROFILE% (C:\Users\<name>), where
// those harnesses keep them there.
func Home(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	return getenv("USERPROFILE")
}

// PortableExe names ctxhook in files shared with others (a project's):
// found on each user's PATH, where a path would be one user's.
const PortableExe = "ctxhook"

// HookClient returns the hook client (ctxhook-hook) installed next to
// exe, or "" when there is none.
func HookClient(exe string) string {
	c := filepath.Join(filepath.Dir(exe), "ctxhook-hook"+exeSuffix)
	if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() && (exeSuffix != "" || fi.Mode()&0o111 != 0) {
		return c
	}
	return ""
}

// WithMCPToolHooks is Claude Code with its tool hooks (PreToolUse,
// PostToolUse, PostToolUseFailure) of type "mcp_tool": each calls
// ctxhook's MCP server, which Claude Code already runs, instead of
// starting a hook command. The others stay commands: SessionStart comes
// before the servers connect, and the rest are rare. secret
// (hooksecret) goes into each mcp_tool hook's input as a literal: the
// server answers only calls that carry it.
func WithMCPToolHooks(h Harness, secret string) Harness {
	h.Hooks = h.MCPToolHooks
	h.Secret = secret
	return h
}

// HookTool is the tool of ctxhook's MCP server that "mcp_tool" hooks
// call (mcpserver.HookTool).
const HookTool = "hook"

// mustRaw encodes v without HTML escaping: a user's hook command with
// `>` or `&` in it stays as the user wrote it.
func mustRaw(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// normal is a canonical encoding for comparing content, ignoring layout.
func (o *object) normal() []byte {
	var b bytes.Buffer
	json.Compact(&b, o.raw())
	return b.Bytes()
}

// Wiring reports which events of a harness's hooks file run ctxhook, and
// the commands they run.
func (h Harness) Wiring(path, exe string, known ...string) (map[string]bool, []string, error) {
	ours, err := h.ours(append([]string{exe}, known...))
	if err != nil {
		return nil, nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var s struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, nil, fmt.Errorf("not valid JSON: %v", err)
	}
	wired := map[string]bool{}
	var cmds []string
	for ev, entries := range s.Hooks {
		for _, e := range entries {
			handlers := []json.RawMessage{e}
			if !h.Flat {
				var g struct {
					Hooks []json.RawMessage `json:"hooks"`
				}
				json.Unmarshal(e, &g)
				handlers = g.Hooks
			}
			for _, hd := range handlers {
				if ok, what := ours.handler(hd); ok {
					wired[ev] = true
					cmds = append(cmds, what)
				}
			}
		}
	}
	return wired, cmds, nil
}

// MCPToolSecrets returns the hook secret each of ctxhook's mcp_tool
// hooks in a Claude Code settings file carries ("" for one without, as
// written before there was a secret); none when it has no such hooks.
func MCPToolSecrets(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []json.RawMessage `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON: %v", path, err)
	}
	ours, err := Claude.ours(nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, groups := range s.Hooks {
		for _, g := range groups {
			for _, raw := range g.Hooks {
				if ok, what := ours.handler(raw); ok && strings.HasPrefix(what, "mcp_tool ") {
					var hd struct{ Input map[string]any }
					json.Unmarshal(raw, &hd)
					secret, _ := hd.Input[hooksecret.Field].(string)
					out = append(out, secret)
				}
			}
		}
	}
	return out, nil
}

// Package install wires ctxhook into a harness's configuration and takes it
// out again.
//
// Guarantees, for every harness: install is idempotent (a second run changes
// no byte); the user's own hooks and settings are never dropped or
// reordered; the previous file is kept as a timestamped backup before any
// change; uninstall removes exactly the entries install added.
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
	"time"

	harnessconfigs "github.com/ctxhook/ctxhook/harness-configs"
)

// ClaudeEvents are the Claude Code hook events ctxhook installs, in order.
var ClaudeEvents = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart", "Stop"}

// Plan is the outcome of an install or uninstall computed without writing.
type Plan struct {
	Path    string
	Before  []byte // nil when the file does not exist
	After   []byte
	Changed bool
	Added   int // hook entries written by ctxhook
	Removed int // hook entries of ctxhook's removed
}

// ClaudeSettingsPath returns the settings file for a scope: "user"
// (~/.claude/settings.json, or $CLAUDE_CONFIG_DIR/settings.json) or
// "project" (.claude/settings.json under dir).
func ClaudeSettingsPath(scope, home, claudeConfigDir, dir string) (string, error) {
	switch scope {
	case "user":
		if claudeConfigDir != "" {
			return filepath.Join(claudeConfigDir, "settings.json"), nil
		}
		if home == "" {
			return "", errors.New("install: HOME is not set")
		}
		return filepath.Join(home, ".claude", "settings.json"), nil
	case "project":
		return filepath.Join(dir, ".claude", "settings.json"), nil
	}
	return "", fmt.Errorf("install: unknown scope %q (want user or project)", scope)
}

// PlanClaude computes the settings file with ctxhook's hooks (install=true)
// or without them (install=false). exe is the ctxhook binary's path; its
// entries are recognised as ctxhook's even if the binary is renamed.
func PlanClaude(path, exe string, install bool) (Plan, error) {
	p := Plan{Path: path}
	before, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return p, fmt.Errorf("install: %w", err)
	}
	if err == nil {
		p.Before = before
	}
	settings, err := parseObject(before)
	if err != nil {
		return p, fmt.Errorf("install: %s is not valid JSON (%v); fix or move it, nothing was changed", path, err)
	}
	hooks := newObject()
	if raw, ok := settings.get("hooks"); ok {
		if hooks, err = parseObject(raw); err != nil {
			return p, fmt.Errorf("install: %s: \"hooks\" is not an object (%v); nothing was changed", path, err)
		}
	}
	// Always remove first: a re-install after the binary moved rewrites the
	// command instead of adding a second copy.
	for _, ev := range append([]string(nil), hooks.keys...) {
		groups, removed, err := withoutOurs(hooks.vals[ev], exe)
		if err != nil {
			return p, fmt.Errorf("install: %s: hooks.%s: %v; nothing was changed", path, ev, err)
		}
		p.Removed += removed
		if removed == 0 {
			continue
		}
		if len(groups) == 0 {
			hooks.del(ev)
		} else {
			hooks.set(ev, mustRaw(groups))
		}
	}
	if install {
		tmpl, err := claudeTemplate(exe)
		if err != nil {
			return p, err
		}
		for _, ev := range tmpl.keys {
			var mine []json.RawMessage
			json.Unmarshal(tmpl.vals[ev], &mine)
			var groups []json.RawMessage
			if raw, ok := hooks.get(ev); ok {
				if err := json.Unmarshal(raw, &groups); err != nil {
					return p, fmt.Errorf("install: %s: hooks.%s is not a list; nothing was changed", path, ev)
				}
			}
			hooks.set(ev, mustRaw(append(groups, mine...)))
			p.Added += len(mine)
		}
	}
	if hooks.len() == 0 {
		settings.del("hooks")
	} else {
		settings.set("hooks", hooks.raw())
	}
	after, err := settings.pretty()
	if err != nil {
		return p, fmt.Errorf("install: %w", err)
	}
	if p.Before == nil && !install {
		after = nil // nothing to uninstall from a file that does not exist
	}
	p.After = after
	p.Changed = !bytes.Equal(p.Before, p.After) && !(p.Before == nil && p.After == nil)
	if install && p.Before != nil {
		// Idempotence is judged on content: a file that already holds
		// exactly our hooks is left alone even if its formatting differs.
		if o, err := parseObject(p.Before); err == nil && bytes.Equal(o.normal(), settings.normal()) {
			p.Changed, p.After = false, p.Before
		}
	}
	return p, nil
}

// Apply writes the plan: a timestamped backup of the old file, then the new
// file, atomically, keeping the old file's permissions.
func (p Plan) Apply(now time.Time) (backup string, err error) {
	if !p.Changed {
		return "", nil
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(p.Path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(p.Path), 0o755); err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	if p.Before != nil {
		backup = p.Path + ".ctxhook-backup-" + now.Format("20060102-150405.000")
		if err := os.WriteFile(backup, p.Before, 0o600); err != nil {
			return "", fmt.Errorf("install: backup: %w", err)
		}
	}
	tmp := p.Path + ".ctxhook-tmp"
	if err := os.WriteFile(tmp, p.After, mode); err != nil {
		return backup, fmt.Errorf("install: %w", err)
	}
	if err := os.Chmod(tmp, mode); err != nil { // whatever the umask
		os.Remove(tmp)
		return backup, fmt.Errorf("install: %w", err)
	}
	if err := os.Rename(tmp, p.Path); err != nil {
		os.Remove(tmp)
		return backup, fmt.Errorf("install: %w", err)
	}
	return backup, nil
}

func claudeTemplate(exe string) (*object, error) {
	b, err := harnessconfigs.FS.ReadFile("claude-code/settings.json")
	if err != nil {
		return nil, fmt.Errorf("install: %w", err)
	}
	// The command is a JSON string: insert the quoted path JSON-escaped.
	esc, _ := json.Marshal(ShellQuote(exe))
	b = bytes.ReplaceAll(b, []byte(harnessconfigs.Placeholder), esc[1:len(esc)-1])
	root, err := parseObject(b)
	if err != nil {
		return nil, fmt.Errorf("install: template: %w", err)
	}
	raw, _ := root.get("hooks")
	return parseObject(raw)
}

// withoutOurs removes ctxhook's handlers from one event's matcher groups and
// drops groups left empty by that. User handlers are kept byte for byte.
func withoutOurs(raw json.RawMessage, exe string) (groups []json.RawMessage, removed int, err error) {
	if err := json.Unmarshal(raw, &groups); err != nil {
		return nil, 0, errors.New("not a list")
	}
	out := groups[:0:0]
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
		for _, h := range handlers {
			var cmd struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(h, &cmd) == nil && IsOurs(cmd.Command, exe) {
				removed++
				continue
			}
			kept = append(kept, h)
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

// IsOurs reports whether a hook command runs `ctxhook hook claude-code`:
// a binary named ctxhook, or exe (the running binary, whatever its name).
func IsOurs(command, exe string) bool {
	f := strings.Fields(command)
	for i := 0; i+2 < len(f); i++ {
		bin := strings.Trim(f[i], `'"`)
		named := bin == "ctxhook" || strings.HasSuffix(bin, "/ctxhook") || (exe != "" && bin == exe)
		if named && f[i+1] == "hook" && f[i+2] == "claude-code" {
			return true
		}
	}
	return false
}

// ShellQuote quotes a path for a POSIX shell when it needs quoting.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == '@' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func mustRaw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// normal is a canonical encoding for comparing content, ignoring layout.
func (o *object) normal() []byte {
	var b bytes.Buffer
	json.Compact(&b, o.raw())
	return b.Bytes()
}

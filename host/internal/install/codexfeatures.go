package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// codexMark ends every line ctxhook adds to Codex's config.toml, so
// uninstall removes exactly those lines and nothing the user wrote.
const codexMark = "# added by ctxhook"

// CodexConfigPath is config.toml next to the hooks file.
func CodexConfigPath(hooksPath string) string {
	return filepath.Join(filepath.Dir(hooksPath), "config.toml")
}

// PlanFeaturesTOML makes sure Codex's config.toml has hooks on
// ([features] hooks = true), or takes back what an install added. A value
// the user set to false is kept in a comment and restored on uninstall.
// It edits lines, not a parsed document, so comments and layout survive.
func PlanFeaturesTOML(path string, install bool) (Plan, error) {
	p := Plan{Path: path}
	before, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return p, fmt.Errorf("install: %w", err)
	}
	if err == nil {
		p.Before = before
	}
	lines := strings.Split(strings.TrimSuffix(string(before), "\n"), "\n")
	if len(before) == 0 {
		lines = nil
	}
	if install && hooksOn(lines) {
		p.After = p.Before // already on (by us or by the user): leave every line where it is
		return p, nil
	}
	lines = withoutCodexLines(lines)
	if install {
		lines = withCodexHooks(lines)
	}
	after := strings.Join(lines, "\n")
	if len(lines) > 0 {
		after += "\n"
	}
	p.After = []byte(after)
	if p.Before == nil && len(lines) == 0 {
		p.After = nil
	}
	p.Changed = !bytes.Equal(p.Before, p.After)
	if install {
		p.Added = 1
	}
	return p, nil
}

// withoutCodexLines drops ctxhook's lines and restores a user's own value.
func withoutCodexLines(lines []string) []string {
	var out []string
	for _, l := range lines {
		_, mark, found := strings.Cut(l, codexMark)
		if !found || strings.Contains(l, codexMCPMark) {
			out = append(out, l)
			continue
		}
		if strings.HasPrefix(l, "[features]") && len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1] // the blank line install put before it
		}
		// "hooks = true # added by ctxhook (was: hooks = false)"
		if was, ok := strings.CutPrefix(strings.TrimSpace(mark), "(was: "); ok {
			out = append(out, strings.TrimSuffix(was, ")"))
		}
	}
	return out
}

// withCodexHooks sets hooks = true in [features], adding the table if
// there is none.
func withCodexHooks(lines []string) []string {
	table := -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			if table >= 0 {
				break
			}
			if tableName(t) == "features" {
				table = i
			}
			continue
		}
		if table >= 0 {
			if k, v, ok := keyValue(t); ok && k == "hooks" {
				if v == "true" {
					return lines
				}
				out := append([]string(nil), lines[:i]...)
				out = append(out, "hooks = true "+codexMark+" (was: "+t+")")
				return append(out, lines[i+1:]...)
			}
		}
	}
	if table >= 0 {
		out := append([]string(nil), lines[:table+1]...)
		out = append(out, "hooks = true "+codexMark)
		return append(out, lines[table+1:]...)
	}
	if len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) != "" {
		lines = append(lines, "")
	}
	return append(lines, "[features] "+codexMark, "hooks = true "+codexMark)
}

// hooksOn reports whether [features] already has hooks = true.
func hooksOn(lines []string) bool {
	in := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			in = tableName(t) == "features"
			continue
		}
		if k, v, ok := keyValue(t); in && ok && k == "hooks" && v == "true" {
			return true
		}
	}
	return false
}

func tableName(line string) string {
	line, _, _ = strings.Cut(line, "#")
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "[[") {
		return ""
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(line, "["), "]"))
}

func keyValue(line string) (key, value string, ok bool) {
	if strings.HasPrefix(line, "#") {
		return "", "", false
	}
	k, v, ok := strings.Cut(line, "=")
	if !ok {
		return "", "", false
	}
	v, _, _ = strings.Cut(v, "#")
	return strings.TrimSpace(k), strings.TrimSpace(v), true
}

// HooksTurnedOff reports whether config.toml turns hooks off.
func HooksTurnedOff(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			in = tableName(t) == "features"
			continue
		}
		if k, v, ok := keyValue(t); in && ok && (k == "hooks" || k == "codex_hooks") && v == "false" {
			return true
		}
	}
	return false
}

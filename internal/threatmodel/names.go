package threatmodel

import (
	"regexp"
	"strings"
)

var backquoted = regexp.MustCompile("`([^`]+)`")

// Names are the entry points a row's first cell names: its backquoted
// words, a short one completed by the full one before it, so a row can
// list a command's flags, a table's keys or a module's exports in one
// cell:
//
//	`ctxhook proxy --url`, `--header`   ctxhook proxy, ctxhook proxy --url, ctxhook proxy --header
//	`ctxhook io load`, `apply`          ctxhook io load, ctxhook io apply
//	`[store] url`, `machine`            [store] url, [store] machine
//	`ctxhook_search.words`, `.substrings`
//	`@ctxhook/core Host`, `loadPlugin`  @ctxhook/core Host, @ctxhook/core loadPlugin
//	`hooks: claude-code`, `codex`       hooks: claude-code, hooks: codex
//
// A table alone (`[retention]`) names no key: each is listed.
func Names(cell string) []string {
	var out []string
	prefix, command, schema := "", "", ""
	for _, m := range backquoted.FindAllStringSubmatch(cell, -1) {
		w := strings.Join(strings.Fields(m[1]), " ")
		if w == "" {
			continue
		}
		switch {
		case strings.HasPrefix(w, "ctxhook "):
			c := commandOf(w)
			prefix, command = c+" ", strings.Join(strings.Fields(c)[:min(2, len(strings.Fields(c)))], " ")+" "
			if c != w && !strings.Contains(w, "<") {
				out = append(out, c) // a flag names its command too
			}
		case strings.HasPrefix(w, "["):
			table, _, _ := strings.Cut(w, "]")
			prefix = table + "] "
		case strings.HasPrefix(w, "@ctxhook/"), strings.HasPrefix(w, "adapters/"):
			module, _, _ := strings.Cut(w, " ")
			prefix = module + " "
		case strings.HasPrefix(w, "hooks: "):
			prefix = "hooks: "
		case strings.HasPrefix(w, "CTXHOOK_"), strings.HasPrefix(w, "GRANT "):
			prefix = ""
		case strings.HasPrefix(w, "."):
			w = schema + w
		case sqlName.MatchString(w):
			schema, _, _ = strings.Cut(w, ".")
		case strings.HasPrefix(prefix, "ctxhook ") && !strings.HasPrefix(w, "-") && !strings.Contains(w, " "):
			w = command + w // a subcommand
			prefix = w + " "
		default:
			if prefix != "" && !strings.Contains(w, " ") {
				w = prefix + w
			}
		}
		out = append(out, w)
	}
	return out
}

var sqlName = regexp.MustCompile(`^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$`)

// commandOf is a command line's command and subcommand, without flags
// and what follows them.
func commandOf(w string) string {
	fields := strings.Fields(w)
	for i, f := range fields {
		if strings.HasPrefix(f, "-") || strings.HasPrefix(f, "<") {
			return strings.Join(fields[:i], " ")
		}
	}
	return w
}

// Covered reports whether some row names e (see Names): exactly, or for
// a family of variables (a name ending in "_") by a member. A table alone
// covers none of its keys: a key added to it later would pass unseen.
func Covered(rows []Row, e Entry) bool {
	for _, r := range rows {
		for _, n := range Names(r.Entry) {
			switch {
			case n == e.Name:
				return true
			case e.Kind == EnvVar && strings.HasSuffix(e.Name, "_") && strings.HasPrefix(n, e.Name):
				return true
			}
		}
	}
	return false
}

// Missing are the entries no row names.
func Missing(rows []Row, entries []Entry) []Entry {
	var out []Entry
	for _, e := range entries {
		if !Covered(rows, e) {
			out = append(out, e)
		}
	}
	return out
}

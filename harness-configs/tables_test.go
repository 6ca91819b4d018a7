package harnessconfigs

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated harness tables")

// anchor is the harness's guide in harness-configs/README.md.
func anchor(h Harness) string {
	if h.Guide != "" {
		return h.Guide
	}
	return strings.ReplaceAll(regexp.MustCompile(`[^a-z0-9 -]`).ReplaceAllString(strings.ToLower(h.Title), ""), " ", "-")
}

// capabilityTable is the README's table: what ctxhook does per harness.
func capabilityTable() string {
	var b strings.Builder
	b.WriteString("| harness | relay | capture | shaping | nudge | transcripts | resume | verified with |\n|---|---|---|---|---|---|---|---|\n")
	for _, h := range All() {
		c := h.Can
		fmt.Fprintf(&b, "| [%s](harness-configs/README.md#%s) | %s | %s | %s | %s | %s | %s | %s |\n",
			h.Title, anchor(h), c.Relay, c.Capture, c.Shaping, c.Nudge, c.Transcripts, c.Resume, c.Verified)
	}
	return b.String()
}

// wiringTable is harness-configs/README.md's table: where install puts
// what, per harness.
func wiringTable() string {
	var b strings.Builder
	b.WriteString("| harness | kind | dialect | user dir | project dir | MCP config (user; project) | events wired |\n|---|---|---|---|---|---|---|\n")
	for _, h := range All() {
		if !h.Installable() {
			continue
		}
		user := "`" + h.Dir.User + "`"
		if h.Dir.Env != "" {
			user += " (`$" + h.Dir.Env + "`)"
		}
		mcp := "`" + h.MCP.User + "`; `" + h.MCP.Project + "` (" + h.MCP.Format + ")"
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s | `%s` | %s | %s |\n",
			h.Title, anchor(h), h.Kind, orDash(h.Dialect), user, h.Dir.Project, mcp, strings.Join(h.Events, ", "))
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "own"
	}
	return s
}

// TestTablesMatchRegistry: the harness tables of the READMEs are
// generated from harnesses.json (go test ./harness-configs -update
// rewrites them); a table edited by hand, or a registry changed without
// them, fails here.
func TestTablesMatchRegistry(t *testing.T) {
	for _, tt := range []struct{ file, table string }{
		{"../README.md", capabilityTable()},
		{"README.md", wiringTable()},
	} {
		b, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		const begin, end = "<!-- generated from harness-configs/harnesses.json: begin -->\n", "<!-- generated: end -->\n"
		text := string(b)
		i, j := strings.Index(text, begin), strings.Index(text, end)
		if i < 0 || j < i {
			t.Fatalf("%s: no generated table (between %q and %q)", tt.file, begin, end)
		}
		got := text[i+len(begin) : j]
		if got == tt.table {
			continue
		}
		if *update {
			os.WriteFile(tt.file, []byte(text[:i+len(begin)]+tt.table+text[j:]), 0o644)
			continue
		}
		t.Errorf("%s: the harness table differs from harnesses.json; run go test ./harness-configs -update\ngot:\n%s\nwant:\n%s", tt.file, got, tt.table)
	}
}

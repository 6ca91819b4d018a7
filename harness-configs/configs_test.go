package harnessconfigs

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRegistryComplete: every harness in harnesses.json has its recorded
// payloads, its conformance cases, and its hooks template (or, loaded
// in-process, its adapter); and nothing under testdata names a harness
// the registry lacks. Adding a harness without one of them fails here.
func TestRegistryComplete(t *testing.T) {
	// Not harnesses: the plugin's other request kinds.
	kinds := []string{"transcript"}
	var names []string
	for _, h := range All() {
		names = append(names, h.Name)
		if h.Title == "" {
			t.Errorf("%s has no title", h.Name)
		}
		if h.Kind == KindLibrary {
			// Its cases are its dialect's.
			if _, ok := Lookup(h.Dialect); !ok {
				t.Errorf("%s: a %s names the harness whose dialect it speaks", h.Name, h.Kind)
			}
		} else if h.Kind == KindProxyOnly && h.Dialect != "" {
			// A client reached only through the proxy: the plugin sees the
			// proxy's requests, under the proxy's name, and runs its cases.
			if !isProxy(h.Dialect) {
				t.Errorf("%s: a %s with a dialect names the proxy's entry, not %q", h.Name, h.Kind, h.Dialect)
			}
		} else {
			for _, dir := range []string{"payloads", "conformance"} {
				files, _ := filepath.Glob(filepath.Join("..", "testdata", dir, h.Name, "*"))
				if len(files) == 0 && !(h.Kind == KindProxyOnly && dir == "payloads") {
					t.Errorf("%s: nothing in testdata/%s/%s", h.Name, dir, h.Name)
				}
			}
		}
		checkKind(t, h)
	}
	for _, dir := range []string{"payloads", "conformance"} {
		entries, err := os.ReadDir(filepath.Join("..", "testdata", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() && !slices.Contains(names, e.Name()) && !slices.Contains(kinds, e.Name()) {
				t.Errorf("testdata/%s/%s names no harness in harnesses.json", dir, e.Name())
			}
		}
	}
	if h, ok := Lookup("claude-code"); !ok || h.Hooks == "" {
		t.Errorf("Lookup(claude-code) = %+v, %v", h, ok)
	}
	if _, ok := Lookup("vim"); ok {
		t.Error("Lookup(vim) found a harness")
	}
	if hn := HookNames(); slices.Contains(hn, "opencode") || !slices.Contains(hn, "cursor") {
		t.Errorf("HookNames() = %v", hn)
	}
	if _, ok := Lookup("mcp-proxy"); ok {
		t.Error("Lookup(mcp-proxy) found a harness install takes")
	}
}

// isProxy reports whether name is the proxy's own entry: proxy-only,
// speaking no other's dialect.
func isProxy(name string) bool {
	for _, h := range All() {
		if h.Name == name {
			return h.Kind == KindProxyOnly && h.Dialect == ""
		}
	}
	return false
}

// checkKind: what each kind of harness must name in its entry.
func checkKind(t *testing.T, h Harness) {
	t.Helper()
	if len(h.Events) == 0 || h.Can.Relay == "" || h.Can.Verified == "" {
		t.Errorf("%s: names no events or capabilities", h.Name)
	}
	if h.Installable() && (h.Dir.User == "" || h.Dir.Project == "" || h.MCP.Format == "") {
		t.Errorf("%s: an installable harness names its directories and MCP config", h.Name)
	}
	switch h.Kind {
	case KindExtension, KindLoader:
		if h.Hooks != "" {
			t.Errorf("%s: a %s has no hooks template", h.Name, h.Kind)
		}
		if _, err := os.Stat(filepath.Join("..", "adapters", h.Adapter(), "index.js")); err != nil {
			t.Errorf("%s: no adapters/%s/index.js: %v", h.Name, h.Adapter(), err)
		}
	case KindHookFile:
		b, err := FS.ReadFile(h.Hooks)
		var v struct{ Hooks map[string]any }
		if err != nil || json.Unmarshal(b, &v) != nil || v.Hooks == nil || !bytes.Contains(b, []byte(Placeholder)) {
			t.Errorf("%s: hooks template %q: %v", h.Name, h.Hooks, err)
		}
		var events []string
		for ev := range v.Hooks {
			events = append(events, ev)
		}
		if slices.Sort(events); !slices.Equal(events, slices.Sorted(slices.Values(h.Events))) {
			t.Errorf("%s: events %v, but its template wires %v", h.Name, h.Events, events)
		}
		if h.HooksFile == "" {
			t.Errorf("%s: a hook-file harness names its hooks file", h.Name)
		}
	case KindHookScript:
		// One file per event, written by install: no template.
		if h.Hooks != "" || h.HooksFile != "" {
			t.Errorf("%s: a %s has no hooks template or file", h.Name, h.Kind)
		}
	case KindLibrary, KindProxyOnly:
	default:
		t.Errorf("%s: unknown kind %q", h.Name, h.Kind)
	}
}

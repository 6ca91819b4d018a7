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
	kinds := []string{"mcp-proxy", "transcript"}
	var names []string
	for _, h := range All() {
		names = append(names, h.Name)
		if h.Title == "" {
			t.Errorf("%s has no title", h.Name)
		}
		for _, dir := range []string{"payloads", "conformance"} {
			files, _ := filepath.Glob(filepath.Join("..", "testdata", dir, h.Name, "*"))
			if len(files) == 0 {
				t.Errorf("%s: nothing in testdata/%s/%s", h.Name, dir, h.Name)
			}
		}
		switch {
		case h.Extension:
			if h.Hooks != "" || h.Plugin {
				t.Errorf("%s: an extension harness has neither a hooks template nor a plugin", h.Name)
			}
			if _, err := os.Stat(filepath.Join("..", "adapters", h.Name, "index.js")); err != nil {
				t.Errorf("%s: no adapters/%s/index.js: %v", h.Name, h.Name, err)
			}
			if h.ConfigDir == "" || h.ProjectDir == "" {
				t.Errorf("%s: an extension harness names its config dir and project dir", h.Name)
			}
		case h.Plugin && h.Hooks != "":
			t.Errorf("%s is a plugin with a hooks template", h.Name)
		case h.Plugin:
			if _, err := os.Stat(filepath.Join("..", "adapters", h.Adapter())); err != nil {
				t.Errorf("%s: no adapters/%s: %v", h.Name, h.Adapter(), err)
			}
			if h.ConfigDir == "" || h.ProjectDir == "" || h.ConfigFile == "" {
				t.Errorf("%s: a plugin harness names its config dir, project dir and config file", h.Name)
			}
		default:
			b, err := FS.ReadFile(h.Hooks)
			var v map[string]any
			if err != nil || json.Unmarshal(b, &v) != nil || v["hooks"] == nil || !bytes.Contains(b, []byte(Placeholder)) {
				t.Errorf("%s: hooks template %q: %v", h.Name, h.Hooks, err)
			}
		}
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
}

// Package harnessconfigs embeds the ready-made configuration ctxhook writes
// into each harness, so `ctxhook install` and a user copying by hand use
// the very same files, and the one list of harnesses (harnesses.json)
// from which the hook command, install, doctor and the conformance tests
// (Go and JS) take theirs. docs/layout.md says what adding one takes.
package harnessconfigs

import (
	"embed"
	"encoding/json"
	"fmt"
)

// Placeholder is replaced by the shell-quoted path of the ctxhook binary.
const Placeholder = "{{CTXHOOK}}"

// FS holds <harness>/<hooks file>, config.toml and harnesses.json.
//
//go:embed */*.json config.toml harnesses.json
var FS embed.FS

// Harness is one agent ctxhook supports.
type Harness struct {
	// Name is the harness as `ctxhook hook <name>`, install and the
	// plugin's requests take it; testdata/payloads/<name> and
	// testdata/conformance/<name> hold its recorded payloads and cases.
	Name string `json:"name"`
	// Title names it for people.
	Title string `json:"title"`
	// Hooks is the file in this package with ctxhook's hook commands for
	// it ("" for a harness that loads ctxhook in-process).
	Hooks string `json:"hooks,omitempty"`
	// Flat: hooks.<event> lists handlers directly (Cursor), not matcher
	// groups with their own "hooks" list.
	Flat bool `json:"flat,omitempty"`
	// Plugin: the harness loads ctxhook in-process (a JS plugin) rather
	// than running hook commands.
	Plugin bool `json:"plugin,omitempty"`
	// Extension: the harness loads a JS extension of ctxhook's that runs
	// the hook client for each tool event (Pi); ConfigDir is its agent
	// directory under HOME, ProjectDir the project's.
	Extension bool `json:"extension,omitempty"`
	// Dialect names the harness whose hook format and adapter this one
	// shares (a descendant speaking its parent's format), "" when it has
	// its own.
	Dialect string `json:"dialect,omitempty"`
	// For a plugin harness: its config directory under XDG_CONFIG_HOME
	// (or ~/.config), the project's one, and the config file in them
	// that lists MCP servers.
	ConfigDir  string `json:"config_dir,omitempty"`
	ProjectDir string `json:"project_dir,omitempty"`
	ConfigFile string `json:"config_file,omitempty"`
}

// Adapter is the directory under adapters/ with the harness's in-process
// loader: its dialect's.
func (h Harness) Adapter() string {
	if h.Dialect != "" {
		return h.Dialect
	}
	return h.Name
}

var all []Harness

func init() {
	b, err := FS.ReadFile("harnesses.json")
	if err == nil {
		err = json.Unmarshal(b, &all)
	}
	if err != nil || len(all) == 0 {
		panic(fmt.Sprintf("harnessconfigs: harnesses.json: %v (%d harnesses)", err, len(all)))
	}
}

// All returns every harness, in the registry's order.
func All() []Harness { return append([]Harness(nil), all...) }

// Lookup finds a harness by name.
func Lookup(name string) (Harness, bool) {
	for _, h := range all {
		if h.Name == name {
			return h, true
		}
	}
	return Harness{}, false
}

// HookNames are the harnesses that run `ctxhook hook <name> <event>`.
func HookNames() []string {
	var out []string
	for _, h := range all {
		if !h.Plugin {
			out = append(out, h.Name)
		}
	}
	return out
}

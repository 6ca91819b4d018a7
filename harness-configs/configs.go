// Package harnessconfigs embeds the ready-made configuration ctxhook writes
// into each harness, so `ctxhook install` and a user copying by hand use
// the very same files, and the one description of every harness
// (harnesses.json) from which the hook command, install, doctor, the
// conformance tests (Go and JS) and the harness tables of the READMEs
// take theirs. docs/layout.md says what adding one takes.
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

// The kinds of harness: how ctxhook is wired into one. Install, uninstall
// and doctor have one implementation per kind, none per harness.
const (
	// KindHookFile: the harness runs ctxhook's hook commands from a JSON
	// hooks file (Claude Code's format and its relatives, Cursor's).
	KindHookFile = "hook-file"
	// KindLoader: the harness loads ctxhook's JS plugin loader, which runs
	// plugin.wasm in-process (OpenCode and its descendants).
	KindLoader = "loader"
	// KindExtension: the harness loads ctxhook's JS extension, which runs
	// the hook client for each tool event (Pi).
	KindExtension = "extension"
	// KindHookScript: the harness runs an executable file per event from
	// a hooks directory (Cline CLI); ctxhook's runs its hook command.
	KindHookScript = "hook-script"
	// KindLibrary: the user's program calls ctxhook's callbacks (the
	// Claude Agent SDK); nothing to install.
	KindLibrary = "library"
	// KindProxyOnly: any MCP client, through `ctxhook proxy`; nothing to
	// install but --wrap-mcp or a hand-written server entry.
	KindProxyOnly = "proxy-only"
)

// Harness is one agent ctxhook supports: every fact about it that code
// other than its dialect needs.
type Harness struct {
	// Name is the harness as `ctxhook hook <name>`, install and the
	// plugin's requests take it; testdata/payloads/<name> and
	// testdata/conformance/<name> hold its recorded payloads and cases.
	Name string `json:"name"`
	// Title names it for people.
	Title string `json:"title"`
	// Kind is one of the Kind constants.
	Kind string `json:"kind"`
	// Dialect names the harness whose hook format and adapter this one
	// shares (a descendant speaking its parent's format), "" when it has
	// its own. The plugin's table of dialects says the same
	// (TestDialectsMatchRegistry).
	Dialect string `json:"dialect,omitempty"`
	// Hooks is the file in this package with ctxhook's hook commands for
	// a hook-file harness.
	Hooks string `json:"hooks,omitempty"`
	// Flat: hooks.<event> lists handlers directly (Cursor), not matcher
	// groups with their own "hooks" list.
	Flat bool `json:"flat,omitempty"`
	// Dir is the harness's configuration directory per scope.
	Dir Dir `json:"dir"`
	// HooksFile is the hooks file's name in Dir (hook-file harnesses).
	HooksFile string `json:"hooks_file,omitempty"`
	// MCP says where ctxhook's own MCP server goes, and whether
	// --wrap-mcp may rewrite the servers there.
	MCP MCP `json:"mcp"`
	// MCPToolHooks is the template of --hook-type mcp_tool ("": the
	// harness has no hooks that call an MCP tool).
	MCPToolHooks string `json:"mcp_tool_hooks,omitempty"`
	// FeaturesTOML is a TOML file in Dir where hooks must be turned on
	// ([features] hooks = true), "" when none.
	FeaturesTOML string `json:"features_toml,omitempty"`
	// Events are the events ctxhook wires (a hooks template's keys).
	Events []string `json:"events"`
	// Can says what ctxhook does there, as the harness tables say it.
	Can Capabilities `json:"can"`
	// Notes are what a user must know after install; {title}, {dir} and
	// {dir_quoted} are filled in.
	Notes []string `json:"notes,omitempty"`
	// DoctorNotes are what doctor tells a user whose hooks are wired.
	DoctorNotes []string `json:"doctor_notes,omitempty"`
	// Guide is the anchor of its guide in harness-configs/README.md when
	// it is not the title's.
	Guide string `json:"guide,omitempty"`
	// ByHand: its adapter is wired by hand (its guide says how), so
	// install, uninstall and doctor do not take it, though `ctxhook hook`
	// does; its kind's installer would write another harness's files.
	ByHand bool `json:"by_hand,omitempty"`
}

// Dir is where a harness keeps its configuration. User is "~/<path>"
// (under the home directory) or "$XDG_CONFIG_HOME/<path>" (the XDG
// config directory, ~/.config when unset); Project is relative to the
// project. Env names a variable that, when set, is the user directory
// itself; with EnvTilde a leading ~ in it is the home directory (as the
// harness expands it).
type Dir struct {
	User     string `json:"user"`
	Project  string `json:"project"`
	Env      string `json:"env,omitempty"`
	EnvTilde bool   `json:"env_tilde,omitempty"`
}

// MCP is where a harness lists MCP servers. User and Project are paths
// as in Dir, or "{dir}/<file>" in the harness's directory for that
// scope; Format names the shape of the file and of ctxhook's entry in
// it (install.MCPFormats). With Wrap, --wrap-mcp rewrites the servers
// there (the harness's hooks never see result _meta); LocalServers is
// the key path, in the user file, of the servers of one project ({cwd}).
type MCP struct {
	User         string   `json:"user,omitempty"`
	Project      string   `json:"project,omitempty"`
	Format       string   `json:"format,omitempty"`
	Wrap         bool     `json:"wrap,omitempty"`
	LocalServers []string `json:"local_servers,omitempty"`
}

// Capabilities say what ctxhook does for a harness, in words for the
// harness tables ("yes", "no", or how).
type Capabilities struct {
	Relay       string `json:"relay"`
	Capture     string `json:"capture"`
	Shaping     string `json:"shaping"`
	Nudge       string `json:"nudge"`
	Transcripts string `json:"transcripts"`
	Resume      string `json:"resume"`
	Verified    string `json:"verified"`
}

// Installable reports whether `ctxhook install` wires it.
func (h Harness) Installable() bool {
	return !h.ByHand && (h.Kind == KindHookFile || h.Kind == KindLoader || h.Kind == KindExtension || h.Kind == KindHookScript)
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

// Installable returns the harnesses `ctxhook install` takes, in order.
func Installable() []Harness {
	var out []Harness
	for _, h := range all {
		if h.Installable() {
			out = append(out, h)
		}
	}
	return out
}

// Lookup finds a harness install takes by name.
func Lookup(name string) (Harness, bool) {
	for _, h := range all {
		if h.Name == name && h.Installable() {
			return h, true
		}
	}
	return Harness{}, false
}

// HookNames are the harnesses that run `ctxhook hook <name> <event>`.
func HookNames() []string {
	var out []string
	for _, h := range all {
		if h.Kind == KindHookFile || h.Kind == KindExtension {
			out = append(out, h.Name)
		}
	}
	return out
}

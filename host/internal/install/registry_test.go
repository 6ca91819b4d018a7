package install

import (
	"path/filepath"
	"testing"
)

// TestRegistryPaths pins where each harness's files are, read from the
// registry: the same paths the per-harness switches gave before the
// registry held them, with and without the variables that move them.
func TestRegistryPaths(t *testing.T) {
	tests := []struct {
		harness, scope string
		env            map[string]string
		dir, hooks     string // "" when the kind has no hooks file
		mcp            string
	}{
		{"claude-code", "user", nil, "/h/.claude", "/h/.claude/settings.json", "/h/.claude.json"},
		{"claude-code", "user", map[string]string{"CLAUDE_CONFIG_DIR": "/c"}, "/c", "/c/settings.json", "/h/.claude.json"},
		{"claude-code", "project", nil, "/p/.claude", "/p/.claude/settings.json", "/p/.mcp.json"},
		{"codex", "user", map[string]string{"CODEX_HOME": "/x"}, "/x", "/x/hooks.json", "/x/config.toml"},
		{"codex", "project", nil, "/p/.codex", "/p/.codex/hooks.json", "/p/.codex/config.toml"},
		{"gemini", "user", nil, "/h/.gemini", "/h/.gemini/settings.json", "/h/.gemini/settings.json"},
		{"cursor", "project", nil, "/p/.cursor", "/p/.cursor/hooks.json", "/p/.cursor/mcp.json"},
		{"copilot", "user", map[string]string{"COPILOT_HOME": "/cp"}, "/cp", "/cp/settings.json", "/cp/mcp-config.json"},
		{"copilot", "project", nil, "/p/.github/copilot", "/p/.github/copilot/settings.json", "/p/.github/copilot/mcp-config.json"},
		{"qwen", "user", nil, "/h/.qwen", "/h/.qwen/settings.json", "/h/.qwen/settings.json"},
		{"auggie", "project", nil, "/p/.augment", "/p/.augment/settings.json", "/p/.augment/settings.json"},
		{"cline", "user", nil, "/h/.cline", "", "/h/.cline/data/settings/cline_mcp_settings.json"},
		{"cline", "user", map[string]string{"CLINE_DIR": "/cl"}, "/cl", "", "/cl/data/settings/cline_mcp_settings.json"},
		{"droid", "user", nil, "/h/.factory", "/h/.factory/settings.json", "/h/.factory/mcp.json"},
		{"opencode", "user", nil, "/h/.config/opencode", "", "/h/.config/opencode/opencode.json"},
		{"opencode", "user", map[string]string{"XDG_CONFIG_HOME": "/xdg"}, "/xdg/opencode", "", "/xdg/opencode/opencode.json"},
		{"opencode", "project", nil, "/p/.opencode", "", "/p/opencode.json"},
		{"kilo", "project", nil, "/p/.kilo", "", "/p/kilo.json"},
		{"pi", "user", nil, "/h/.pi/agent", "", "/h/.pi/agent/mcp.json"},
		{"pi", "user", map[string]string{"PI_CODING_AGENT_DIR": "~/pi"}, "/h/pi", "", "/h/pi/mcp.json"},
		{"pi", "user", map[string]string{"PI_CODING_AGENT_DIR": "/abs/pi"}, "/abs/pi", "", "/abs/pi/mcp.json"},
		{"pi", "project", nil, "/p/.pi", "", "/p/.pi/mcp.json"},
	}
	for _, tt := range tests {
		h, ok := Lookup(tt.harness)
		if !ok {
			t.Fatalf("no harness %s", tt.harness)
		}
		env := map[string]string{"HOME": "/h"}
		for k, v := range tt.env {
			env[k] = v
		}
		getenv := func(k string) string { return env[k] }
		name := tt.harness + " " + tt.scope
		if d, err := h.ConfigDir(tt.scope, getenv, "/p"); err != nil || filepath.FromSlash(d) != filepath.FromSlash(tt.dir) {
			t.Errorf("%s %v: ConfigDir = %q, %v; want %q", name, tt.env, d, err, tt.dir)
		}
		if p, err := h.HooksPath(tt.scope, getenv, "/p"); tt.hooks != "" && (err != nil || filepath.FromSlash(p) != filepath.FromSlash(tt.hooks)) || tt.hooks == "" && err == nil {
			t.Errorf("%s %v: HooksPath = %q, %v; want %q", name, tt.env, p, err, tt.hooks)
		}
		if p, err := h.MCPConfigPath(tt.scope, getenv, "/p"); err != nil || filepath.FromSlash(p) != filepath.FromSlash(tt.mcp) {
			t.Errorf("%s %v: MCPConfigPath = %q, %v; want %q", name, tt.env, p, err, tt.mcp)
		}
	}
	if _, err := Claude.HooksPath("user", func(string) string { return "" }, "/p"); err == nil {
		t.Error("HooksPath with no HOME: no error")
	}
	if got := MCPTargets(Codex, "user", func(string) string { return "/h" }, "/p"); got != nil {
		t.Errorf("MCPTargets(codex) = %v: its hooks see _meta", got)
	}
}

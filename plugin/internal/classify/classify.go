// Package classify sorts a harness tool call into a category and, for MCP
// tools, splits out the server name.
package classify

import (
	"strings"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// OwnServer is the name ctxhook's own MCP server is installed under. Its
// calls are never nudged: reminding the model to search while it searches
// is noise.
const OwnServer = "ctxhook"

// MCPName splits a Claude-style MCP tool name "mcp__<server>__<tool>".
// The name alone is ambiguous when a server's name holds "__" or ends in
// "_" ("mcp__a___b" is server "a_" or tool "_b"), so it is resolved, in
// order, by the server the harness reports (knownServer), by the longest
// configured server the name starts with, and only then by its first
// "__" after at least one character of server.
func MCPName(name, knownServer string, servers []string) (server, tool string, ok bool) {
	rest, found := strings.CutPrefix(name, "mcp__")
	if !found {
		return "", "", false
	}
	if knownServer != "" {
		if t, found := strings.CutPrefix(rest, knownServer+"__"); found {
			return knownServer, t, true
		}
	}
	return ServerTool(rest, servers)
}

// ServerTool splits "<server>__<tool>" (an MCP tool name past its
// harness's prefix, or Cline's whole name): after the longest of servers
// that starts it, else at its first "__" after at least one character.
func ServerTool(name string, servers []string) (server, tool string, ok bool) {
	if s := longestPrefix(name, servers, "__"); s != "" {
		return s, name[len(s)+2:], true
	}
	if name == "" {
		return "", "", false
	}
	i := strings.Index(name[1:], "__") + 1
	if i == 0 || i+2 >= len(name) {
		return "", "", false
	}
	return name[:i], name[i+2:], true
}

// longestPrefix returns the longest of servers that, followed by sep,
// starts name with something left after it, or "".
func longestPrefix(name string, servers []string, sep string) string {
	best := ""
	for _, s := range servers {
		if s != "" && len(s) > len(best) && len(name) > len(s)+len(sep) && strings.HasPrefix(name, s+sep) {
			best = s
		}
	}
	return best
}

// DroidName splits Factory Droid's MCP tool name "<server>___<tool>".
func DroidName(name string) (server, tool string, ok bool) {
	server, tool, ok = strings.Cut(name, "___")
	if !ok || server == "" || tool == "" {
		return "", "", false
	}
	return server, tool, true
}

// CopilotName splits GitHub Copilot CLI's MCP tool name "<server>-<tool>".
// A configured server's name is matched first, longest first (a server
// named "my-tracker"); otherwise the name is cut at its first "-" (Copilot's
// own tools have none).
func CopilotName(name string, servers []string) (server, tool string, ok bool) {
	if best := longestPrefix(name, servers, "-"); best != "" {
		return best, name[len(best)+1:], true
	}
	server, tool, ok = strings.Cut(name, "-")
	if !ok || server == "" || tool == "" {
		return "", "", false
	}
	return server, tool, true
}

var builtin = map[string]string{
	"Read":         abi.CategoryFileRead,
	"NotebookRead": abi.CategoryFileRead,
	"Edit":         abi.CategoryFileEdit,
	"MultiEdit":    abi.CategoryFileEdit,
	"Write":        abi.CategoryFileEdit,
	"NotebookEdit": abi.CategoryFileEdit,
	"Bash":         abi.CategoryShell,
	"BashOutput":   abi.CategoryShell,
	"KillShell":    abi.CategoryShell,
	"WebFetch":     abi.CategoryWeb,
	"WebSearch":    abi.CategoryWeb,
	"Glob":         abi.CategorySearch,
	"Grep":         abi.CategorySearch,
	"LS":           abi.CategorySearch,
	"ToolSearch":   abi.CategorySearch,
	"Task":         abi.CategorySubagent,
	"Agent":        abi.CategorySubagent,
}

// Built-in tool names of the other harnesses. Unknown names fall back to
// CategoryTool, so a renamed tool is recorded, just less precisely.
var (
	gemini = map[string]string{
		"read_file": abi.CategoryFileRead, "read_many_files": abi.CategoryFileRead,
		"write_file": abi.CategoryFileEdit, "replace": abi.CategoryFileEdit,
		"run_shell_command": abi.CategoryShell,
		"web_fetch":         abi.CategoryWeb, "google_web_search": abi.CategoryWeb,
		"glob": abi.CategorySearch, "search_file_content": abi.CategorySearch,
		"grep_search": abi.CategorySearch, "list_directory": abi.CategorySearch,
		"codebase_investigator": abi.CategorySubagent,
	}
	cursor = map[string]string{
		"Read": abi.CategoryFileRead, "Write": abi.CategoryFileEdit, "Delete": abi.CategoryFileEdit,
		"Shell": abi.CategoryShell, "Grep": abi.CategorySearch, "Glob": abi.CategorySearch,
		"LS": abi.CategorySearch, "WebFetch": abi.CategoryWeb, "WebSearch": abi.CategoryWeb,
		"Task": abi.CategorySubagent,
	}
	opencode = map[string]string{
		"read": abi.CategoryFileRead, "write": abi.CategoryFileEdit, "edit": abi.CategoryFileEdit,
		"patch": abi.CategoryFileEdit, "multiedit": abi.CategoryFileEdit,
		"bash": abi.CategoryShell, "webfetch": abi.CategoryWeb, "websearch": abi.CategoryWeb,
		"glob": abi.CategorySearch, "grep": abi.CategorySearch, "list": abi.CategorySearch,
		"codesearch": abi.CategorySearch, "task": abi.CategorySubagent,
	}
)

// GeminiTool returns the category of a Gemini CLI tool name.
func GeminiTool(name string) string {
	if strings.HasPrefix(name, "mcp_") {
		return abi.CategoryMCP
	}
	return lookup(gemini, name)
}

// CursorTool returns the category of a Cursor tool name.
func CursorTool(name string) string {
	if strings.HasPrefix(name, "MCP:") {
		return abi.CategoryMCP
	}
	return lookup(cursor, name)
}

// OpenCodeTool returns the category of an OpenCode built-in tool name.
// OpenCode's MCP tool names carry no marker; its dialect decides those.
func OpenCodeTool(name string) string { return lookup(opencode, name) }

func lookup(table map[string]string, name string) string {
	if c, ok := table[name]; ok {
		return c
	}
	return abi.CategoryTool
}

// Tool returns the category of a tool name.
func Tool(name string) string {
	if strings.HasPrefix(name, "mcp__") {
		return abi.CategoryMCP
	}
	if c, ok := builtin[name]; ok {
		return c
	}
	return abi.CategoryTool
}

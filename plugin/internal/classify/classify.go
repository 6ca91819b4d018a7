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
// knownServer, when the harness reports it, resolves names whose server
// part itself contains "__".
func MCPName(name, knownServer string) (server, tool string, ok bool) {
	rest, found := strings.CutPrefix(name, "mcp__")
	if !found {
		return "", "", false
	}
	if knownServer != "" {
		if t, found := strings.CutPrefix(rest, knownServer+"__"); found {
			return knownServer, t, true
		}
	}
	server, tool, found = strings.Cut(rest, "__")
	if !found || server == "" || tool == "" {
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

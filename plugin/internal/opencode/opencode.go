// Package opencode speaks the dialect of ctxhook's OpenCode plugin loader
// (adapters/opencode). OpenCode has no hook processes: plugins are
// functions called in-process with (input, output) objects they mutate.
// The loader passes both objects to the plugin as one JSON payload and
// applies the Answer it gets back to them.
//
// Facts it relies on (recorded on OpenCode 1.18.33):
//   - MCP tools are named <server>_<tool>, the names sanitized to
//     [A-Za-z0-9_-]; there is no "mcp" marker, so the server is found by
//     matching known server names.
//   - tool.execute.before's output.args is the very object sent to the
//     server: it must be changed in place (a new object is ignored).
//   - tool.execute.after's output, for an MCP tool, is the raw
//     CallToolResult with _meta; changing output.content changes what the
//     model sees. Built-in tools give {title, output, metadata}.
package opencode

import (
	"encoding/json"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"regexp"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/internal/payload"
)

// Hook names.
const (
	ToolBefore  = "tool.execute.before"
	ToolAfter   = "tool.execute.after"
	ChatMessage = "chat.message"
	// Compacting is called before OpenCode compacts a session; context
	// strings the plugin adds go into the compaction prompt.
	Compacting = "experimental.session.compacting"
)

// Payload is what the loader sends (abi.OpenCodePayload).
type Payload struct{ abi.OpenCodePayload }

// Parse decodes a loader payload.
func Parse(raw []byte) (*Payload, error) {
	var p Payload
	if err := payload.Decode(raw, &p); err != nil {
		return nil, err
	}
	if err := payload.ObjectOrAbsent(p.Input.Args, "input.args"); err != nil {
		return nil, err
	}
	return &p, nil
}

// Args returns the tool arguments: output.args before the call,
// input.args after it.
func (p *Payload) Args() json.RawMessage {
	if p.Hook == ToolBefore {
		var o struct {
			Args json.RawMessage `json:"args"`
		}
		json.Unmarshal(p.Output, &o)
		return o.Args
	}
	return p.Input.Args
}

// IsMCPResult reports whether an after-hook output is a raw MCP
// CallToolResult (content blocks, no built-in tool's "output" text).
func (p *Payload) IsMCPResult() bool {
	var o struct {
		Content []json.RawMessage `json:"content"`
		Output  *json.RawMessage  `json:"output"`
	}
	return json.Unmarshal(p.Output, &o) == nil && o.Content != nil && o.Output == nil
}

// PromptText joins the text parts of a chat.message output.
func (p *Payload) PromptText() string {
	var o struct {
		Parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"parts"`
	}
	json.Unmarshal(p.Output, &o)
	var parts []string
	for _, part := range o.Parts {
		if part.Type == "text" && part.Text != "" {
			parts = append(parts, part.Text)
		}
	}
	return strings.Join(parts, "\n")
}

var unsafe = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// Sanitize maps a server name the way OpenCode does in tool names.
func Sanitize(name string) string { return unsafe.ReplaceAllString(name, "_") }

// Split finds the server of a tool name among known server names, the
// longest match first, so "a_b_tool" goes to server "a_b" over "a".
func Split(tool string, servers []string) (server, rest string, ok bool) {
	best := -1
	for _, s := range servers {
		prefix := Sanitize(s) + "_"
		if strings.HasPrefix(tool, prefix) && len(tool) > len(prefix) && len(prefix) > best {
			server, rest, ok, best = s, tool[len(prefix):], true, len(prefix)
		}
	}
	return server, rest, ok
}

// Answer is the stdout the loader applies (abi.OpenCodeAnswer).
type Answer = abi.OpenCodeAnswer

// Encode returns the answer as stdout.
func Encode(a Answer) string { return payload.Encode(a) }

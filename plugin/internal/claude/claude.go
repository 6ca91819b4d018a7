// Package claude speaks Claude Code's hook dialect: it parses the JSON a
// hook receives on stdin and writes the exact JSON Claude Code reads back.
//
// Facts it relies on (recorded on Claude Code 2.1.197 and 2.1.330):
//   - MCP tools are named mcp__<server>__<tool>; 2.1.330 adds mcp_server.name.
//   - PostToolUse tool_response for an MCP tool is the content-block array
//     (or a string when the server sent structuredContent); result _meta is
//     not included.
//   - PreToolUse updatedInput replaces the whole input and is honoured only
//     with permissionDecision "allow" (or "ask").
package claude

import (
	"encoding/json"
	"path"
	"regexp"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/internal/jsonfast"
	"github.com/ctxhook/ctxhook/plugin/internal/payload"
)

// Event names as Claude Code sends them in hook_event_name.
const (
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	UserPromptSubmit   = "UserPromptSubmit"
	SessionStart       = "SessionStart"
	SessionEnd         = "SessionEnd"
	Stop               = "Stop"
	PreCompact         = "PreCompact"
	PostCompact        = "PostCompact"
)

// ErrPayload wraps every parse failure, so hosts can tell "bad input" from
// "ctxhook failed" with errors.Is.
var ErrPayload = payload.ErrPayload

// Payload is the subset of a Claude Code hook input ctxhook reads. Unknown
// fields are ignored, so newer Claude Code versions keep working.
type Payload struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	ToolUseID      string          `json:"tool_use_id"`
	Error          json.RawMessage `json:"error"`
	Prompt         string          `json:"prompt"`
	Source         string          `json:"source"`
	Reason         string          `json:"reason"`
	LastMessage    string          `json:"last_assistant_message"`
	// ToolResult and Timestamp are GitHub Copilot CLI's: its Claude-form
	// payloads carry the result as tool_result {result_type,
	// text_result_for_llm}, a timestamp, and no transcript_path.
	ToolResult json.RawMessage `json:"tool_result"`
	Timestamp  json.RawMessage `json:"timestamp"`
	// CursorVersion is in every payload of Cursor's, which runs Claude
	// Code's hooks too when its third-party hooks setting is on.
	CursorVersion json.RawMessage `json:"cursor_version"`
	MCPServer     *struct {
		Name string `json:"name"`
	} `json:"mcp_server"`
}

// Foreign names the agent whose payload this is when it is not Claude
// Code's (nor a harness speaking its format, which is told by its own
// hook command): "cursor" or "copilot", which both run Claude Code's
// hooks as well as their own; "" otherwise.
func (p *Payload) Foreign() string {
	switch {
	case len(p.CursorVersion) > 0 && string(p.CursorVersion) != "null":
		return "cursor"
	case p.FromCopilot():
		return "copilot"
	}
	return ""
}

// FromCopilot reports whether the payload is GitHub Copilot CLI's, which
// runs a repository's .claude/settings.json hooks too: it has Copilot's
// tool_result, or a timestamp and no transcript (Claude Code names its
// transcript in every payload, and sends no timestamp).
func (p *Payload) FromCopilot() bool {
	return len(p.ToolResult) > 0 && string(p.ToolResult) != "null" || len(p.Timestamp) > 0 && string(p.Timestamp) != "null" && p.TranscriptPath == ""
}

// CopilotResult is Copilot's tool_result: the text the model gets, and
// whether the call failed.
func (p *Payload) CopilotResult() (text string, failed, ok bool) {
	var r struct {
		Type string `json:"result_type"`
		Text string `json:"text_result_for_llm"`
	}
	if len(p.ToolResult) == 0 || json.Unmarshal(p.ToolResult, &r) != nil {
		return "", false, false
	}
	return r.Text, r.Type == "failure" || r.Type == "rejected" || r.Type == "denied", true
}

// ContextAtTop moves additionalContext from hookSpecificOutput to the
// answer's top level, the only place GitHub Copilot CLI reads it, keeping
// the rest (a changed input and its allow) where it is.
func ContextAtTop(stdout string) string {
	var o hookOutput
	if stdout == "" || json.Unmarshal([]byte(stdout), &o) != nil || o.HookSpecificOutput == nil || o.HookSpecificOutput.AdditionalContext == "" {
		return stdout
	}
	h := *o.HookSpecificOutput
	out := struct {
		HookSpecificOutput *specific `json:"hookSpecificOutput,omitempty"`
		AdditionalContext  string    `json:"additionalContext"`
	}{AdditionalContext: h.AdditionalContext}
	h.AdditionalContext = ""
	if h.PermissionDecision != "" || h.UpdatedInput != nil || h.UpdatedMCPToolOutput != "" {
		out.HookSpecificOutput = &h
	}
	return encode(out)
}

// Server returns the MCP server name Claude Code reported, if any.
func (p *Payload) Server() string {
	if p.MCPServer == nil {
		return ""
	}
	return p.MCPServer.Name
}

// Parse decodes a hook payload. event is the event the hook was installed
// for; when the payload names another, the payload wins (it is what
// Claude Code actually fired) unless it names none.
func Parse(raw []byte) (*Payload, error) { return ParseWith(raw, nil) }

// ParseWith is Parse that leaves in e (when not nil) what it learnt of
// raw's structure, so that expanding its tool response later does not
// search its long strings again.
func ParseWith(raw []byte, e *jsonfast.Expander) (*Payload, error) {
	raw = payload.Clean(raw)
	p, ok := parseFast(raw, e)
	if !ok {
		p = &Payload{}
		if err := payload.Decode(raw, p); err != nil {
			return nil, err
		}
	}
	if err := payload.ObjectOrAbsent(p.ToolInput, "tool_input"); err != nil {
		return nil, err
	}
	return p, nil
}

// parseFast decodes the usual payload without reflection (see package
// jsonfast); ok is false for anything it leaves to encoding/json: a key
// given twice or in another case, a value of an unexpected type.
func parseFast(raw []byte, e *jsonfast.Expander) (*Payload, bool) {
	members, ok := e.Object(raw)
	if !ok {
		return nil, false
	}
	var p Payload
	strs := map[string]*string{"session_id": &p.SessionID, "transcript_path": &p.TranscriptPath, "cwd": &p.Cwd,
		"hook_event_name": &p.HookEventName, "tool_name": &p.ToolName, "tool_use_id": &p.ToolUseID,
		"prompt": &p.Prompt, "source": &p.Source, "reason": &p.Reason, "last_assistant_message": &p.LastMessage}
	raws := map[string]*json.RawMessage{"tool_input": &p.ToolInput, "tool_response": &p.ToolResponse, "error": &p.Error,
		"tool_result": &p.ToolResult, "timestamp": &p.Timestamp, "cursor_version": &p.CursorVersion}
	seen := map[string]bool{}
	for _, m := range members {
		k := m.Key
		if seen[k] {
			return nil, false
		}
		seen[k] = true
		isNull := string(m.Value) == "null"
		if dst, ok := strs[k]; ok {
			if isNull {
				continue
			}
			s, ok := jsonfast.String(m.Value)
			if !ok {
				return nil, false
			}
			*dst = s
		} else if dst, ok := raws[k]; ok {
			*dst = json.RawMessage(m.Value)
		} else if k == "mcp_server" {
			if isNull {
				continue
			}
			if m.Value[0] != '{' || json.Unmarshal(m.Value, &p.MCPServer) != nil {
				return nil, false
			}
		} else if !plainKey(k) {
			return nil, false // might name a field in another case
		}
	}
	return &p, true
}

// plainKey reports whether k cannot match any field of Payload, in any
// case: encoding/json matches keys case-insensitively.
func plainKey(k string) bool {
	for _, f := range []string{"session_id", "transcript_path", "cwd", "hook_event_name", "tool_name", "tool_input",
		"tool_response", "tool_use_id", "error", "prompt", "source", "reason", "last_assistant_message", "mcp_server",
		"tool_result", "timestamp", "cursor_version"} {
		if strings.EqualFold(k, f) {
			return false
		}
	}
	return true
}

// PreToolUseAllow returns the stdout that replaces the tool input and
// allows the call. Claude Code ignores updatedInput without an allow.
func PreToolUseAllow(updatedInput json.RawMessage, additionalContext string) string {
	return encode(hookOutput{HookSpecificOutput: &specific{
		HookEventName:      PreToolUse,
		PermissionDecision: "allow",
		UpdatedInput:       updatedInput,
		AdditionalContext:  additionalContext,
	}})
}

// AdditionalContext returns the stdout that adds text for the model next
// to the event (a tool result, a prompt, a session start).
func AdditionalContext(event, text string) string {
	return encode(hookOutput{HookSpecificOutput: &specific{
		HookEventName:     event,
		AdditionalContext: text,
	}})
}

// SessionStartOutput is SessionStart's answer: context for the model
// (the working-state block), and a line for the user, which Claude Code
// shows and the model does not see (systemMessage); either may be empty.
func SessionStartOutput(context, userMessage string) string {
	if context == "" && userMessage == "" {
		return ""
	}
	out := hookOutput{SystemMessage: userMessage}
	if context != "" {
		out.HookSpecificOutput = &specific{HookEventName: SessionStart, AdditionalContext: context}
	}
	return encode(out)
}

type hookOutput struct {
	SystemMessage      string    `json:"systemMessage,omitempty"`
	HookSpecificOutput *specific `json:"hookSpecificOutput,omitempty"`
}

type specific struct {
	HookEventName        string          `json:"hookEventName"`
	PermissionDecision   string          `json:"permissionDecision,omitempty"`
	UpdatedInput         json.RawMessage `json:"updatedInput,omitempty"`
	AdditionalContext    string          `json:"additionalContext,omitempty"`
	UpdatedMCPToolOutput string          `json:"updatedMCPToolOutput,omitempty"`
}

// PostToolUseOutput returns the stdout that adds context after a tool result
// and, when replacement is set, replaces the MCP tool's output the model
// sees (Claude Code takes a string here; Codex ignores the field, so the
// plugin never sends it to Codex).
func PostToolUseOutput(event, context, replacement string) string {
	return encode(hookOutput{HookSpecificOutput: &specific{
		HookEventName:        event,
		AdditionalContext:    context,
		UpdatedMCPToolOutput: replacement,
	}})
}

func encode(v any) string { return payload.Encode(v) }

// Overflow is a large MCP result Claude Code saved to a file, handing the
// hook (and the model) a stub that names it instead of the result
// (verified on 2.1.330: testdata/payloads/claude-code/2.1.330-large-result).
type Overflow struct {
	// Path is the file: the result's one text block, raw, or (JSON) its
	// content blocks as a JSON array.
	Path string
	JSON bool
}

// overflowHead is the stub's first line: the result's size, then the file
// (compiled on first use: start-up time is paid by every cold hook).
var overflowHead *regexp.Regexp

const overflowPattern = (`^Error: result \([0-9,]+ characters(?: across [0-9,]+ lines)?\) exceeds maximum allowed tokens\. Output has been saved to (/[^\n]+\.txt)\.\nFormat: (Plain text|JSON array[^\n]*)\n`)

// ParseOverflow reads the stub a PostToolUse's tool_response holds when
// Claude Code saved the result to a file. It accepts only the file
// Claude Code writes for this session: tool-results/mcp-*.txt in the
// session's directory beside its transcript. The stub is text a server
// could also send, and a path anywhere else (a key file, another
// project's results) must never be read on its say-so.
func (p *Payload) ParseOverflow() (Overflow, bool) {
	if p.HookEventName != PostToolUse || len(p.ToolResponse) == 0 || p.ToolResponse[0] != '"' || p.TranscriptPath == "" || p.SessionID == "" {
		return Overflow{}, false
	}
	stub, ok := jsonfast.String(p.ToolResponse)
	if !ok {
		return Overflow{}, false
	}
	if !strings.HasPrefix(stub, "Error: result (") {
		return Overflow{}, false
	}
	if overflowHead == nil {
		overflowHead = regexp.MustCompile(overflowPattern)
	}
	m := overflowHead.FindStringSubmatch(stub)
	if m == nil {
		return Overflow{}, false
	}
	file := m[1]
	dir := path.Join(path.Dir(p.TranscriptPath), p.SessionID, "tool-results")
	name := path.Base(file)
	if path.Clean(file) != file || path.Dir(file) != dir || !strings.HasPrefix(name, "mcp-") ||
		strings.ContainsAny(p.SessionID, "/\\") || p.SessionID == "." || p.SessionID == ".." {
		return Overflow{}, false
	}
	return Overflow{Path: file, JSON: strings.HasPrefix(m[2], "JSON array")}, true
}

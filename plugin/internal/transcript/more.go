package transcript

import (
	"encoding/json"
	"strings"
)

// More formats: the session histories other harnesses keep on disk, one
// JSON value per line. Each reader takes one line and keeps nothing
// between lines; what it relies on was read from files the client wrote
// (testdata/transcripts/<format>-<version>.*).
const (
	// Copilot is GitHub Copilot CLI's events.jsonl (1.0.102):
	// $COPILOT_HOME/session-state/<session>/events.jsonl.
	Copilot = "copilot"
	// Droid is Factory's Droid (0.225.2):
	// ~/.factory/sessions/<project>/<session>.jsonl, Claude-like blocks.
	Droid = "droid"
	// Gemini is Gemini CLI's chat record (0.61.0):
	// ~/.gemini/tmp/<project>/chats/session-*.jsonl. Its first line names
	// the session; "$set" lines rewrite metadata and are skipped; a model
	// message may be written twice, the second time with its tool calls.
	Gemini = "gemini"
	// OpenCode is a session of OpenCode's database (1.18.33) or Kilo's
	// (7.7.7), one message a line as the host renders it: {session,
	// directory, time, message, parts}, message and parts each the JSON
	// OpenCode stores.
	OpenCode = "opencode"
	Kilo     = "kilo"
	// Qwen is Qwen Code's chat record (0.24.4):
	// ~/.qwen/projects/<project>/chats/<session>.jsonl, Gemini-like parts.
	Qwen = "qwen"
	// Pi is the Pi coding agent's session (1.6.0):
	// ~/.pi/agent/sessions/<project>/<time>_<session>.jsonl.
	Pi = "pi"
)

// lineReaders maps the formats that need no state between lines to their
// line reader.
var lineReaders = map[string]func([]byte) entry{
	Copilot:  copilotLine,
	Droid:    droidLine,
	Gemini:   geminiLine,
	OpenCode: openCodeLine,
	Kilo:     openCodeLine,
	Qwen:     qwenLine,
	Pi:       piLine,
}

// Known reports whether format names a transcript format.
func Known(format string) bool {
	_, ok := lineReaders[format]
	return ok || format == ClaudeCode || format == Codex
}

// copilotLine reads one Copilot CLI event. A turn starts at user.message;
// hooks, usage records and turn markers add nothing.
func copilotLine(line []byte) entry {
	var l struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Data      struct {
			SessionID string `json:"sessionId"`
			Context   struct {
				Cwd string `json:"cwd"`
			} `json:"context"`
			Content      string `json:"content"`
			ToolRequests []struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"toolRequests"`
			Result struct {
				Content string `json:"content"`
			} `json:"result"`
		} `json:"data"`
	}
	if json.Unmarshal(line, &l) != nil {
		return entry{}
	}
	d := l.Data
	e := entry{timeMS: parseTime(l.Timestamp)}
	switch l.Type {
	case "session.start":
		e.session, e.cwd = d.SessionID, d.Context.Cwd
	case "user.message":
		e.startsTurn = d.Content != ""
		e.text = "user: " + d.Content
	case "assistant.message":
		var parts []string
		if d.Content != "" {
			parts = append(parts, "assistant: "+d.Content)
		}
		for _, t := range d.ToolRequests {
			parts = append(parts, "tool "+t.Name+" "+compact(t.Arguments))
		}
		e.text = strings.Join(parts, "\n")
	case "tool.execution_complete":
		if d.Result.Content != "" {
			e.text = "result: " + capText(d.Result.Content, MaxResult)
		}
	}
	return e
}

// droidLine reads one line of a Droid session: session_start names the
// session and project; messages hold Claude-like content blocks. A user
// message with no text (a hook's record) or only a system reminder starts
// no turn.
func droidLine(line []byte) entry {
	var l struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		Cwd       string `json:"cwd"`
		Timestamp string `json:"timestamp"`
		Message   struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &l) != nil {
		return entry{}
	}
	switch l.Type {
	case "session_start":
		return entry{session: l.ID, cwd: l.Cwd}
	case "message":
		return blocksEntry(l.Message.Role, l.Message.Content, parseTime(l.Timestamp))
	}
	return entry{}
}

// blocksEntry renders a message of Claude-like content blocks (a string,
// or text, tool_use and tool_result blocks).
func blocksEntry(role string, content json.RawMessage, timeMS int64) entry {
	e := entry{timeMS: timeMS}
	var s string
	if json.Unmarshal(content, &s) == nil {
		e.startsTurn = role == "user" && s != "" && !isReminder(s)
		e.text = role + ": " + s
		return e
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Name    string          `json:"name"`
		Input   json.RawMessage `json:"input"`
		Content json.RawMessage `json:"content"`
	}
	json.Unmarshal(content, &blocks)
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if role == "user" && isReminder(b.Text) {
				continue
			}
			e.startsTurn = e.startsTurn || role == "user"
			parts = append(parts, role+": "+b.Text)
		case "tool_use":
			parts = append(parts, "tool "+b.Name+" "+compact(b.Input))
		case "tool_result":
			if r := resultText(b.Content); r != "" {
				parts = append(parts, "result: "+capText(r, MaxResult))
			}
		}
	}
	e.text = strings.Join(parts, "\n")
	return e
}

func isReminder(s string) bool {
	return strings.HasPrefix(strings.TrimSpace(s), "<system-reminder>")
}

// geminiLine reads one line of a Gemini CLI chat record.
func geminiLine(line []byte) entry {
	var l struct {
		SessionID string          `json:"sessionId"`
		Type      string          `json:"type"`
		Timestamp string          `json:"timestamp"`
		Content   json.RawMessage `json:"content"`
		ToolCalls []struct {
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		} `json:"toolCalls"`
	}
	if json.Unmarshal(line, &l) != nil {
		return entry{}
	}
	e := entry{timeMS: parseTime(l.Timestamp)}
	switch l.Type {
	case "":
		e.session = l.SessionID
	case "user":
		e.startsTurn, e.text = geminiParts(l.Content)
	case "gemini":
		var parts []string
		if _, text := geminiParts(l.Content); text != "" {
			parts = append(parts, "assistant: "+strings.TrimPrefix(text, "user: "))
		}
		for _, c := range l.ToolCalls {
			parts = append(parts, "tool "+c.Name+" "+compact(c.Args))
		}
		e.text = strings.Join(parts, "\n")
	}
	return e
}

// geminiParts renders a message's content: a string, or parts with text
// or a function's response. Text other than Gemini CLI's own session
// context is a prompt.
func geminiParts(raw json.RawMessage) (prompt bool, text string) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return false, ""
		}
		return true, "user: " + s
	}
	var parts []struct {
		Text     string `json:"text"`
		Response *struct {
			Name     string          `json:"name"`
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	}
	json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		switch {
		case p.Response != nil:
			var r struct {
				Output string `json:"output"`
			}
			body := compact(p.Response.Response)
			if json.Unmarshal(p.Response.Response, &r) == nil && r.Output != "" {
				body = r.Output
			}
			out = append(out, "result: "+capText(body, MaxResult))
		case p.Text != "" && !strings.HasPrefix(p.Text, "<session_context>"):
			prompt = true
			out = append(out, "user: "+p.Text)
		}
	}
	return prompt, strings.Join(out, "\n")
}

// openCodeLine reads one message of an OpenCode session: a user message's
// text parts start a turn; an assistant's text and completed tool parts
// (input and output) follow.
func openCodeLine(line []byte) entry {
	var l struct {
		Session   string `json:"session"`
		Directory string `json:"directory"`
		Time      int64  `json:"time"`
		Message   struct {
			Role string `json:"role"`
		} `json:"message"`
		Parts []struct {
			Type  string `json:"type"`
			Text  string `json:"text"`
			Tool  string `json:"tool"`
			State struct {
				Input  json.RawMessage `json:"input"`
				Output string          `json:"output"`
			} `json:"state"`
			Synthetic bool `json:"synthetic"`
		} `json:"parts"`
	}
	if json.Unmarshal(line, &l) != nil {
		return entry{}
	}
	e := entry{timeMS: l.Time, session: l.Session, cwd: l.Directory}
	var parts []string
	for _, p := range l.Parts {
		switch {
		case p.Type == "text" && p.Text != "" && !p.Synthetic:
			if l.Message.Role == "user" {
				e.startsTurn = true
			}
			parts = append(parts, l.Message.Role+": "+p.Text)
		case p.Type == "tool":
			parts = append(parts, "tool "+p.Tool+" "+compact(p.State.Input))
			if p.State.Output != "" {
				parts = append(parts, "result: "+capText(p.State.Output, MaxResult))
			}
		}
	}
	e.text = strings.Join(parts, "\n")
	return e
}

// qwenLine reads one record of a Qwen Code chat: the user's prompts, the
// model's text and function calls, and tool results; system records
// (telemetry, snapshots) add nothing.
func qwenLine(line []byte) entry {
	var l struct {
		SessionID string `json:"sessionId"`
		Timestamp string `json:"timestamp"`
		Type      string `json:"type"`
		Cwd       string `json:"cwd"`
		Message   struct {
			Parts []struct {
				Text string `json:"text"`
				Call *struct {
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
				Response *struct {
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &l) != nil {
		return entry{}
	}
	e := entry{timeMS: parseTime(l.Timestamp), session: l.SessionID, cwd: l.Cwd}
	role := map[string]string{"user": "user", "assistant": "assistant"}[l.Type]
	if role == "" && l.Type != "tool_result" {
		return e
	}
	var parts []string
	for _, p := range l.Message.Parts {
		switch {
		case p.Call != nil:
			parts = append(parts, "tool "+p.Call.Name+" "+compact(p.Call.Args))
		case p.Response != nil:
			parts = append(parts, "result: "+capText(outputOf(p.Response.Response), MaxResult))
		case p.Text != "" && role != "":
			e.startsTurn = e.startsTurn || role == "user"
			parts = append(parts, role+": "+p.Text)
		}
	}
	e.text = strings.Join(parts, "\n")
	return e
}

// outputOf is a function response's output field, or the response itself.
func outputOf(raw json.RawMessage) string {
	var r struct {
		Output string `json:"output"`
	}
	if json.Unmarshal(raw, &r) == nil && r.Output != "" {
		return r.Output
	}
	return compact(raw)
}

// piLine reads one line of a Pi session: "session" names it and its
// project; messages of role user start turns, assistant messages hold
// text and tool calls, toolResult messages the results.
func piLine(line []byte) entry {
	var l struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		Cwd       string `json:"cwd"`
		Timestamp string `json:"timestamp"`
		Message   struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &l) != nil {
		return entry{}
	}
	e := entry{timeMS: parseTime(l.Timestamp)}
	switch {
	case l.Type == "session":
		e.session, e.cwd = l.ID, l.Cwd
	case l.Type != "message":
	case l.Message.Role == "toolResult":
		if r := resultText(l.Message.Content); r != "" {
			e.text = "result: " + capText(r, MaxResult)
		}
	case l.Message.Role == "user" || l.Message.Role == "assistant":
		var blocks []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal(l.Message.Content, &blocks) != nil {
			return blocksEntry(l.Message.Role, l.Message.Content, e.timeMS)
		}
		var parts []string
		for _, b := range blocks {
			switch {
			case b.Type == "text" && b.Text != "":
				e.startsTurn = e.startsTurn || l.Message.Role == "user"
				parts = append(parts, l.Message.Role+": "+b.Text)
			case b.Type == "toolCall":
				parts = append(parts, "tool "+b.Name+" "+compact(b.Arguments))
			}
		}
		e.text = strings.Join(parts, "\n")
	}
	return e
}

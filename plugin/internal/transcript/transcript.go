// Package transcript turns agent session transcripts (JSON Lines files
// Claude Code and Codex CLI write) into chunks of one logical turn each:
// a user prompt and everything the agent did about it, tool calls and
// tool results included, as readable text for the search index.
//
// Input is whole lines read from some byte offset on. A turn is complete
// once the next prompt starts, or when the session is over (final); the
// unfinished last turn is left for the next pass, and Parse says how many
// bytes it consumed so the host can resume there.
package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// Formats.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
)

// Limits on one chunk's text: a tool result is cut at MaxResult and a
// turn at MaxChunk, each with a visible marker.
const (
	MaxResult = 16 << 10
	MaxChunk  = 64 << 10
)

// Turn is one logical turn.
type Turn struct {
	TimeMS  int64
	Session string
	Cwd     string
	Text    string
}

// entry is one transcript line reduced to what a turn needs.
type entry struct {
	startsTurn bool
	timeMS     int64
	session    string
	cwd        string
	text       string // "" when the line adds nothing
}

// Parse reads complete lines from data. It returns the complete turns and
// the number of bytes they span from the start of data (where the next
// pass must begin). With final, the last turn is complete too.
func Parse(format string, data []byte, final bool) (turns []Turn, consumed int) {
	var cur *Turn
	var curText strings.Builder
	start := 0 // offset where cur began
	flush := func() {
		if cur != nil {
			cur.Text = capText(curText.String(), MaxChunk)
			if strings.TrimSpace(cur.Text) != "" {
				turns = append(turns, *cur)
			}
		}
		cur = nil
		curText.Reset()
	}
	off := 0
	calls := map[string]string{} // codex call_id -> "name args"
	var session, cwd string      // as last seen: Codex states them once, up front
	for off < len(data) {
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			break // an incomplete line: the next pass reads it whole
		}
		line := data[off : off+nl]
		lineStart := off
		off += nl + 1
		var e entry
		switch format {
		case ClaudeCode:
			e = claudeLine(line)
		case Codex:
			e = codexLine(line, calls)
		default:
			read, ok := lineReaders[format]
			if !ok {
				return nil, 0
			}
			e = read(line)
		}
		if e.session != "" {
			session = e.session
		}
		if e.cwd != "" {
			cwd = e.cwd
		}
		if e.startsTurn {
			flush()
			consumed = lineStart
			start = lineStart
			cur = &Turn{TimeMS: e.timeMS, Session: session, Cwd: cwd}
		}
		if cur == nil {
			consumed = off // lines before the first prompt belong to no turn
			continue
		}
		if e.text != "" {
			curText.WriteString(e.text)
			curText.WriteByte('\n')
		}
		if cur.Session == "" {
			cur.Session = e.session
		}
		if cur.Cwd == "" {
			cur.Cwd = e.cwd
		}
	}
	if cur != nil && final {
		flush()
		consumed = off
	} else if cur != nil {
		consumed = start
	}
	return turns, consumed
}

func capText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "\n[ctxhook: cut, " + itoa(len(s)-cut) + " more bytes in the transcript]"
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func parseTime(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// claudeLine reads one line of a Claude Code transcript. Only "user" and
// "assistant" lines carry the conversation (2.1.330 also writes request
// blobs, attachments and bookkeeping, which repeat or add nothing).
func claudeLine(line []byte) entry {
	var l struct {
		Type      string `json:"type"`
		IsMeta    bool   `json:"isMeta"`
		Sidechain bool   `json:"isSidechain"`
		Timestamp string `json:"timestamp"`
		SessionID string `json:"sessionId"`
		Cwd       string `json:"cwd"`
		Message   struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &l) != nil || (l.Type != "user" && l.Type != "assistant") || l.Sidechain {
		return entry{}
	}
	e := entry{timeMS: parseTime(l.Timestamp), session: l.SessionID, cwd: l.Cwd}
	var s string
	if json.Unmarshal(l.Message.Content, &s) == nil {
		if l.Type == "user" && !l.IsMeta {
			e.startsTurn = true
			e.text = "user: " + s
		} else if l.Type == "assistant" {
			e.text = "assistant: " + s
		}
		return e
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Name    string          `json:"name"`
		Input   json.RawMessage `json:"input"`
		Content json.RawMessage `json:"content"`
	}
	json.Unmarshal(l.Message.Content, &blocks)
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if l.Type == "user" && !l.IsMeta && !strings.HasPrefix(b.Text, "<system-reminder>") {
				e.startsTurn = true
				parts = append(parts, "user: "+b.Text)
			} else if l.Type == "assistant" {
				parts = append(parts, "assistant: "+b.Text)
			}
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

// codexLine reads one line of a Codex CLI rollout file.
func codexLine(line []byte, calls map[string]string) entry {
	var l struct {
		Timestamp string `json:"timestamp"`
		Type      string `json:"type"`
		Payload   struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			SessionID string          `json:"session_id"`
			Cwd       string          `json:"cwd"`
			Role      string          `json:"role"`
			Content   []contentBlock  `json:"content"`
			Name      string          `json:"name"`
			Namespace string          `json:"namespace"`
			Arguments string          `json:"arguments"`
			CallID    string          `json:"call_id"`
			Output    json.RawMessage `json:"output"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &l) != nil {
		return entry{}
	}
	p := l.Payload
	e := entry{timeMS: parseTime(l.Timestamp)}
	switch {
	case l.Type == "session_meta":
		e.session, e.cwd = p.ID, p.Cwd
		if e.session == "" {
			e.session = p.SessionID
		}
	case l.Type != "response_item":
	case p.Type == "message" && p.Role == "user":
		text := joinText(p.Content)
		if text == "" || isCodexContext(text) {
			return e
		}
		e.startsTurn = true
		e.text = "user: " + text
	case p.Type == "message" && p.Role == "assistant":
		e.text = "assistant: " + joinText(p.Content)
	case p.Type == "function_call":
		name := p.Name
		if p.Namespace != "" {
			name = p.Namespace + "__" + p.Name
		}
		calls[p.CallID] = name
		e.text = "tool " + name + " " + p.Arguments
	case p.Type == "function_call_output":
		if r := resultText(p.Output); r != "" {
			e.text = "result: " + capText(r, MaxResult)
		}
	}
	return e
}

type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func joinText(blocks []contentBlock) string {
	var parts []string
	for _, b := range blocks {
		if b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// isCodexContext reports whether a user message is Codex's own setup text
// rather than something the user typed.
func isCodexContext(text string) bool {
	for _, p := range []string{"<environment_context>", "<user_instructions>", "<skills_instructions>", "<permissions instructions>", "<turn_aborted>"} {
		if strings.HasPrefix(strings.TrimSpace(text), p) {
			return true
		}
	}
	return false
}

// resultText renders a tool result: a string, or text blocks.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []contentBlock
	if json.Unmarshal(raw, &blocks) == nil {
		return joinText(blocks)
	}
	return ""
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

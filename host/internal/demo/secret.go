package demo

import (
	"encoding/json"
	"strings"

	"github.com/ctxhook/ctxhook/host/store"
)

// marker starts every redaction in stored text ([REDACTED] or
// [REDACTED:rule]).
const marker = "[REDACTED"

// redactedLine finds the first stored line with a redaction and the line
// the server sent for it, found in the recorded payloads by the text
// before the redaction: the demo shows both, so "secrets redacted" is not
// taken on trust. Zero when the store holds no redaction.
func redactedLine(st *store.Store, records []Record) RedactedLine {
	// A rule's redaction (an API key, a password) shows more than a
	// relay token's, which every workflow response has first.
	if l := findRedacted(st, records, marker+":"); l.Kept != "" {
		return l
	}
	return findRedacted(st, records, marker)
}

func findRedacted(st *store.Store, records []Record, marker string) RedactedLine {
	for id := int64(1); id <= 200; id++ {
		e, err := st.Event(id)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(e.Text, "\n") {
			i := strings.Index(line, marker)
			if i < 8 {
				continue
			}
			if sent := sentLine(records, line[:i]); sent != "" && sent != line {
				return RedactedLine{Event: id, Sent: strings.TrimSpace(sent), Kept: strings.TrimSpace(line)}
			}
		}
	}
	return RedactedLine{}
}

// sentLine is the first line of a recorded response that starts as
// prefix does and holds more than a redaction would.
func sentLine(records []Record, prefix string) string {
	for _, r := range records {
		if r.Event != "PostToolUse" {
			continue
		}
		var pl struct {
			ToolResponse any `json:"tool_response"`
		}
		if json.Unmarshal(r.Payload, &pl) != nil {
			continue
		}
		for _, s := range stringsIn(pl.ToolResponse, 2) {
			for _, line := range strings.Split(s, "\n") {
				if strings.HasPrefix(line, prefix) && !strings.Contains(line, marker) {
					return line
				}
			}
		}
	}
	return ""
}

// stringsIn lists the strings in a decoded JSON value, and those in a
// string that is itself JSON (a text block holding a server's JSON), down
// to depth such nestings.
func stringsIn(v any, depth int) []string {
	var out []string
	switch v := v.(type) {
	case string:
		out = append(out, v)
		var inner any
		if depth > 0 && json.Unmarshal([]byte(v), &inner) == nil {
			out = append(out, stringsIn(inner, depth-1)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, stringsIn(x, depth)...)
		}
	case map[string]any:
		for _, x := range v {
			out = append(out, stringsIn(x, depth)...)
		}
	}
	return out
}

// Clip shortens a line for the terminal around the redaction, keeping
// its start.
func Clip(line string, max int) string {
	if len(line) <= max {
		return line
	}
	return line[:max-1] + "…"
}

package engine

import (
	"encoding/json"
	"strings"
	"unsafe"

	"github.com/ctxhook/ctxhook/plugin/internal/jsonfast"
	"github.com/ctxhook/ctxhook/plugin/internal/redact"
)

// redactResponse redacts a tool response and renders its readable text
// (readableText's), reading each body once.
//
// Most of a large MCP response is the text of its content blocks, held
// as JSON strings. Those are redacted decoded, as the text they are: one
// pass serves both the stored response and the search text, and a secret
// is found whatever escapes the server wrote around it (a key after an
// escaped newline, a header after an escaped tab, a URL with escaped
// slashes). The block's string is written back, escaped, only when
// redaction changed it; everything around the texts (block types,
// _meta, structuredContent, an unfamiliar shape) is redacted as raw JSON
// text, as before.
func (d *decision) redactResponse(r *redact.Redactor, raw json.RawMessage) (response, text string, n int) {
	v, err := d.decode(raw)
	if err != nil {
		out, m := r.String(rawString(raw))
		return out, "", m
	}
	switch t := v.(type) {
	case string:
		// A JSON string: Claude Code's rendering of structuredContent, or a
		// plain text result.
		red, m := r.String(t)
		if m == 0 {
			return rawString(raw), t, 0
		}
		return string(jsonfast.AppendString(nil, red)), red, m
	case []any:
		return d.redactBlocks(r, raw, t)
	case map[string]any:
		c, _ := d.json.Value(t["content"])
		if blocks, ok := c.([]any); ok {
			return d.redactBlocks(r, raw, blocks)
		}
	}
	out, m := r.String(rawString(raw))
	return out, "", m
}

// redactBlocks redacts raw, whose content blocks are blocks (Raw slices
// of raw): each block's text decoded, the rest of raw as text.
func (d *decision) redactBlocks(r *redact.Redactor, raw json.RawMessage, blocks []any) (response, text string, n int) {
	type span struct {
		start, end int // the text value's token in raw
		red        string
		changed    bool
	}
	var spans []span
	var texts []string
	for _, b := range blocks {
		b, _ = d.json.Value(b)
		m, ok := b.(map[string]any)
		if !ok {
			continue
		}
		tv, isRaw := m["text"].(jsonfast.Raw)
		if !isRaw {
			// Already decoded (a block with an escaped key is decoded whole):
			// its text is read, and raw redaction below covers its bytes.
			if s, ok := m["text"].(string); ok {
				red, _ := r.String(s)
				texts = append(texts, red)
			}
			continue
		}
		decoded, ok := d.json.Value(tv)
		s, isStr := decoded.(string)
		if !ok || !isStr {
			continue
		}
		red, m2 := r.String(s)
		texts = append(texts, red)
		start := offsetIn(raw, tv)
		if start < 0 || len(spans) > 0 && start < spans[len(spans)-1].end {
			continue // not a slice of raw in order: its bytes are redacted as raw text
		}
		n += m2
		spans = append(spans, span{start, start + len(tv), red, m2 > 0})
	}
	// Everything between the texts, redacted as raw text; the texts as
	// redacted, re-escaped only where they changed.
	var out strings.Builder
	out.Grow(len(raw) + 64)
	last := 0
	for _, sp := range spans {
		seg, m := r.String(rawString(raw[last:sp.start]))
		n += m
		out.WriteString(seg)
		if sp.changed {
			out.Write(jsonfast.AppendString(nil, sp.red))
		} else {
			out.WriteString(rawString(raw[sp.start:sp.end]))
		}
		last = sp.end
	}
	seg, m := r.String(rawString(raw[last:]))
	n += m
	out.WriteString(seg)
	if len(texts) == 1 {
		return out.String(), texts[0], n
	}
	return out.String(), strings.Join(texts, "\n"), n
}

// offsetIn is where inner, a slice of outer, starts in it; -1 if it is not
// one.
func offsetIn(outer, inner []byte) int {
	if len(inner) == 0 || len(outer) == 0 {
		return -1
	}
	o := uintptr(unsafe.Pointer(unsafe.SliceData(outer)))
	i := uintptr(unsafe.Pointer(unsafe.SliceData(inner)))
	if i < o || i+uintptr(len(inner)) > o+uintptr(len(outer)) {
		return -1
	}
	return int(i - o)
}

// rawBytes is s as bytes without a copy, for reading only.
func rawBytes(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// rawString is b as a string without a copy: payloads are never written
// to once read.
func rawString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

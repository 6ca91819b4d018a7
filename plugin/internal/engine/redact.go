package engine

import (
	"encoding/json"
	"strings"
	"unsafe"

	"github.com/ctxhook/ctxhook/plugin/abi"
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
//
// A response that is exactly one text block ([{"type":"text","text": T}],
// how Claude Code hands a hook nearly every result) comes back as its
// text alone with form abi.ResponseFormTextBlock: the response is
// abi.TextBlockResponse(text), rebuilt by whoever reads it.
func (d *decision) redactResponse(r *redact.Redactor, raw json.RawMessage) (response, text, form string, n int) {
	v, err := d.decode(raw)
	if err != nil {
		out, m := r.String(rawString(raw))
		return out, "", "", m
	}
	switch t := v.(type) {
	case string:
		// A JSON string: Claude Code's rendering of structuredContent, or a
		// plain text result.
		red, m := r.String(t)
		if m == 0 {
			return rawString(raw), t, "", 0
		}
		return rawString(jsonfast.AppendString(make([]byte, 0, len(raw)+64), red)), red, "", m
	case []any:
		if s, ok := d.onlyTextBlock(t); ok {
			red, m := r.String(s)
			return "", red, abi.ResponseFormTextBlock, m
		}
		resp, text, m := d.redactBlocks(r, raw, t)
		return resp, text, "", m
	case map[string]any:
		c, _ := d.json.Value(t["content"])
		if blocks, ok := c.([]any); ok {
			resp, text, m := d.redactBlocks(r, raw, blocks)
			return resp, text, "", m
		}
	}
	out, m := r.String(rawString(raw))
	return out, "", "", m
}

// onlyTextBlock returns T when blocks is exactly one {"type":"text",
// "text": T}, nothing more (an annotation or _meta keeps the response
// whole).
func (d *decision) onlyTextBlock(blocks []any) (string, bool) {
	if len(blocks) != 1 {
		return "", false
	}
	b, _ := d.json.Value(blocks[0])
	m, ok := b.(map[string]any)
	if !ok || len(m) != 2 {
		return "", false
	}
	typ, _ := d.json.Value(m["type"])
	text, _ := d.json.Value(m["text"])
	s, isText := text.(string)
	return s, typ == "text" && isText
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
	out := make([]byte, 0, len(raw)+len(raw)/32+64)
	last := 0
	for _, sp := range spans {
		seg, m := r.String(rawString(raw[last:sp.start]))
		n += m
		out = append(out, seg...)
		if sp.changed {
			out = jsonfast.AppendString(out, sp.red)
		} else {
			out = append(out, raw[sp.start:sp.end]...)
		}
		last = sp.end
	}
	seg, m := r.String(rawString(raw[last:]))
	n += m
	out = append(out, seg...)
	if len(texts) == 1 {
		return rawString(out), texts[0], n
	}
	return rawString(out), strings.Join(texts, "\n"), n
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

package engine

import (
	"encoding/json"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ctxhook/ctxhook/plugin/internal/jsonfast"
	"github.com/ctxhook/ctxhook/plugin/internal/mcpmsg"
)

// readableText renders a tool response for the search index: the text of
// MCP content blocks joined by newlines, a JSON string as its value. It
// returns "" when the raw JSON is already the best text to index.
func (d *decision) readableText(raw json.RawMessage) string {
	v, err := d.decode(raw)
	if err != nil {
		return ""
	}
	switch t := v.(type) {
	case string:
		return t
	case []any:
		return d.blocksText(t)
	case map[string]any:
		return d.blocksText(t["content"])
	}
	return ""
}

// contentText is readableText of o's serialization, read from its content
// member where it lies: a result whose token was hidden has new bytes
// only in the members that held it, so its big text block is not parsed
// a second time.
func (d *decision) contentText(o mcpmsg.Object) string {
	if o["content"] == nil {
		return ""
	}
	return d.blocksText(jsonfast.Raw(o["content"]))
}

// blocksText joins the text of a content array's text blocks (content
// may still be jsonfast.Raw), or is "" when content is not an array.
func (d *decision) blocksText(content any) string {
	c, _ := d.json.Value(content)
	blocks, ok := c.([]any)
	if !ok {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		b, _ = d.json.Value(b)
		m, ok := b.(map[string]any)
		if !ok {
			continue
		}
		text, _ := d.json.Value(m["text"])
		if s, ok := text.(string); ok {
			parts = append(parts, s)
		}
	}
	if len(parts) == 1 {
		return parts[0] // the usual single block: no copy
	}
	return strings.Join(parts, "\n")
}

// decode expands raw JSON's top level, once per decision: a tool response
// is read for its token, its text and its shape. Members stay
// jsonfast.Raw until a reader expands them through d.json, so a large
// response is decoded only as far as it is read. Callers must not change
// what it returns.
func (d *decision) decode(raw json.RawMessage) (any, error) {
	if m := &d.decoded; m.n == len(raw) && m.n > 0 && unsafe.SliceData(raw) == m.ptr {
		return m.v, m.err
	}
	v, err := d.json.Expand(raw)
	if len(raw) > 0 {
		d.decoded.ptr, d.decoded.n, d.decoded.v, d.decoded.err = unsafe.SliceData(raw), len(raw), v, err
	}
	return v, err
}

// capBytes cuts s to at most max bytes on a UTF-8 boundary and appends a
// visible marker, so a reader can never mistake a cut body for a whole one.
func capBytes(s string, max int) (string, bool) {
	if max < 0 || len(s) <= max {
		return s, false
	}
	cut := max
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "\n[ctxhook: truncated, " + strconv.Itoa(len(s)-cut) + " of " + strconv.Itoa(len(s)) + " bytes not stored]", true
}

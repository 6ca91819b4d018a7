// Package modeltext makes a name, an argument or a stored string safe to
// put inside a text ctxhook composes for the model (the working-state
// block, a re-fetch hint, a shaped result's pointer, a search listing).
// Such strings come from MCP servers, tool calls and stored output: all
// hostile. A newline in a tool name would start a line of its own in the
// block, one that reads as ctxhook speaking ("- IMPORTANT (from ctxhook):
// ..."); a bidi override would make the line read otherwise than it is
// stored. Escape writes every character that can break or disguise a
// line as a visible escape, so a name stays inside the line it was put in.
//
// The plugin and the hosts share it: one rule for every text the model
// is shown.
package modeltext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// NameBytes bounds a name (a server, a tool, an event key) in a text for
// the model: no real one is longer, and a longer one is someone's payload.
const NameBytes = 100

// Name escapes a name and cuts it to NameBytes.
func Name(s string) string { return Escape(s, NameBytes) }

// Escape returns s with every character that could start a line, end
// one, or disguise the text written as a visible escape (\n, \r, \t,
// \x1b, \u2028, \u202e, ...), invalid UTF-8 as \xNN, cut to at most max
// bytes on a character boundary with "…" marking the cut (max <= 0: no
// bound). The result contains no byte below 0x20, no DEL, no C1 control,
// no line or paragraph separator and no bidi control.
func Escape(s string, max int) string {
	if clean(s) {
		return cut(s, max)
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(hex2(byte(r)))
		case unsafeRune(r):
			b.WriteString(`\u`)
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(h)) + h)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return cut(b.String(), max)
}

// Quote returns s cut to max bytes (max <= 0: whole) in Go's double-quoted
// form: strconv.Quote escapes every character Escape does (none of them
// is printable) and the quote and backslash besides, so a quoted string
// cannot end its quotes early either.
func Quote(s string, max int) string { return strconv.Quote(cut(s, max)) }

// Safe reports whether s has nothing Escape would change (its length
// aside): no character that breaks or disguises a line.
func Safe(s string) bool { return clean(s) }

func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || unsafeRune(r) {
				return false
			}
			i += size - 1
		}
	}
	return true
}

// unsafeRune reports a character above ASCII that breaks or disguises a
// line: C1 controls (NEL among them), the line and paragraph separators,
// and the bidi marks, embeddings, overrides and isolates.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

func hex2(c byte) string {
	const hex = "0123456789abcdef"
	return string([]byte{hex[c>>4], hex[c&15]})
}

// cut returns s cut to at most n bytes on a rune boundary, "…" marking a
// cut; n <= 0 leaves s whole. Escape's output is ASCII around whole
// runes, so a cut never splits an escape's character.
func cut(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	i := n - len("…")
	if i < 0 {
		i = 0
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

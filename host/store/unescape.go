package store

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// unescapeJSON undoes JSON string escapes (\n, \t, \", \\, \/, \uXXXX
// ...) in text that holds JSON as text: an MCP result's content block
// is often a JSON document, whose strings' line breaks and quotes are
// escapes. Indexed as they are, `\nNightly` is the word "nnightly" and a
// quoted log line never matches the line; shown as they are, a snippet
// is a run of backslashes. It returns the text and a function mapping an
// offset in it back to the offset in s. Anything that is not a valid
// escape stays as it is (a Windows path, a regular expression).
func unescapeJSON(s string) (string, func(int) int) {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s, func(p int) int { return p }
	}
	var b strings.Builder
	b.Grow(len(s))
	// marks[k] = {offset in the text, offset in s} after each escape.
	var marks [][2]int
	in := 0 // offset in s of what is left
	for i >= 0 {
		b.WriteString(s[in : in+i])
		r, n := unescapeAt(s[in+i:])
		switch {
		case n == 0:
			b.WriteByte('\\')
			n = 1
		case r != '\n' && r != '\t' && r != '\r' && unicode.IsControl(r):
			// A NUL would end FTS5's document there (hiding what follows
			// from the index), an ESC would reach a terminal: a space.
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
		in += i + n
		marks = append(marks, [2]int{b.Len(), in})
		i = strings.IndexByte(s[in:], '\\')
	}
	b.WriteString(s[in:])
	out := b.String()
	return out, func(p int) int {
		k := sort.Search(len(marks), func(k int) bool { return marks[k][0] > p }) - 1
		if k < 0 {
			return p
		}
		return marks[k][1] + p - marks[k][0]
	}
}

// unescapeAt decodes the escape at the start of s (which starts with a
// backslash): the character and the bytes it took, or 0 bytes when s
// does not start with a valid one.
func unescapeAt(s string) (rune, int) {
	if len(s) < 2 {
		return 0, 0
	}
	switch s[1] {
	case 'n':
		return '\n', 2
	case 't':
		return '\t', 2
	case 'r':
		return '\r', 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case '"', '\\', '/':
		return rune(s[1]), 2
	case 'u':
		r, ok := hex4(s[2:])
		if !ok {
			return 0, 0
		}
		if utf16.IsSurrogate(r) {
			if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
				if r2, ok := hex4(s[8:]); ok {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						return d, 12
					}
				}
			}
			return utf8.RuneError, 6
		}
		return r, 6
	}
	return 0, 0
}

func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[:4]) {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	return r, true
}

// indexText is what the indexes see of a stored text: its JSON escapes
// undone (unescapeJSON).
func indexText(s string) string {
	out, _ := unescapeJSON(s)
	return out
}

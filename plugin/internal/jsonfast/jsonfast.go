// Package jsonfast decodes JSON without reflection, in one pass.
//
// encoding/json validates its whole input first, then decodes it again
// through a state machine that makes an indirect call per byte. Inside
// plugin.wasm that costs about 60 ns a byte, and a hook decodes the same
// 5-20 KB tool response several times. These functions give exactly what
// encoding/json gives (a differential fuzz test holds them to it) in one
// direct pass: on anything unusual they hand the input to encoding/json
// instead, so its results and errors stay the reference.
package jsonfast

import (
	"bytes"
	"encoding/json"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// maxDepth is encoding/json's nesting limit; deeper input is left to it.
const maxDepth = 10000

// Decode is json.Unmarshal(b, &v) for an `any` v.
func Decode(b []byte) (any, error) {
	p := parser{b: b}
	p.ws()
	v, ok := p.value()
	p.ws()
	if ok && p.i == len(b) {
		return v, nil
	}
	var slow any
	err := json.Unmarshal(b, &slow)
	return slow, err
}

// Member is one member of an object: its key, decoded, and its value's
// raw bytes.
type Member struct {
	Key   string
	Value []byte
}

// Object returns the members of b, which must be one valid JSON object
// (whitespace around it allowed), in order. ok is false when b is not,
// or a key holds an escape or a non-ASCII byte: the caller then decodes
// with encoding/json, whose key matching and errors are the reference.
func Object(b []byte) (members []Member, ok bool) { return object(b, nil) }

func object(b []byte, memo *Expander) (members []Member, ok bool) {
	p := parser{b: b, memo: memo}
	p.ws()
	if !p.lit('{') {
		return nil, false
	}
	p.ws()
	if p.lit('}') {
		p.ws()
		return nil, p.i == len(b)
	}
	for {
		if p.i >= len(b) || b[p.i] != '"' {
			return nil, false
		}
		start := p.i + 1
		end, simple := p.stringEnd()
		if end < 0 || !simple {
			return nil, false
		}
		key := string(b[start:end])
		p.i = end + 1
		p.ws()
		if !p.lit(':') {
			return nil, false
		}
		p.ws()
		vs := p.i
		if !p.skip() {
			return nil, false
		}
		members = append(members, Member{Key: key, Value: b[vs:p.i:p.i]})
		p.ws()
		if p.lit(',') {
			p.ws()
			continue
		}
		if !p.lit('}') {
			return nil, false
		}
		p.ws()
		return members, p.i == len(b)
	}
}

// String decodes raw, one JSON string token, as encoding/json would.
// ok is false when raw is not a valid string token.
func String(raw []byte) (string, bool) {
	p := parser{b: raw}
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	s, ok := p.str()
	return s, ok && p.i == len(raw)
}

type parser struct {
	b     []byte
	i     int
	depth int
	// memo, when set, learns where each long string it checks ends, so
	// that later splits of the same bytes skip it (Expander.ends).
	memo *Expander
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) lit(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *parser) word(w string) bool {
	if len(p.b)-p.i >= len(w) && string(p.b[p.i:p.i+len(w)]) == w {
		p.i += len(w)
		return true
	}
	return false
}

// value decodes one value at p.i into what encoding/json puts in an any.
func (p *parser) value() (any, bool) {
	if p.i >= len(p.b) {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		return p.str()
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == 't':
		return true, p.word("true")
	case c == 'f':
		return false, p.word("false")
	case c == 'n':
		return nil, p.word("null")
	default:
		start := p.i
		if !p.number() {
			return nil, false
		}
		f, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
		return f, err == nil
	}
}

// object reads an object at p.i (its '{'), as map[string]any.
func (p *parser) object() (any, bool) {
	if p.depth++; p.depth > maxDepth {
		return nil, false
	}
	p.i++
	m := map[string]any{}
	p.ws()
	if p.lit('}') {
		p.depth--
		return m, true
	}
	for {
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, false
		}
		k, ok := p.str()
		if !ok {
			return nil, false
		}
		p.ws()
		if !p.lit(':') {
			return nil, false
		}
		p.ws()
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		m[k] = v
		p.ws()
		if p.lit(',') {
			p.ws()
			continue
		}
		if !p.lit('}') {
			return nil, false
		}
		p.depth--
		return m, true
	}
}

// array reads an array at p.i (its '['), as []any.
func (p *parser) array() (any, bool) {
	if p.depth++; p.depth > maxDepth {
		return nil, false
	}
	p.i++
	a := []any{}
	p.ws()
	if p.lit(']') {
		p.depth--
		return a, true
	}
	for {
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		a = append(a, v)
		p.ws()
		if p.lit(',') {
			p.ws()
			continue
		}
		if !p.lit(']') {
			return nil, false
		}
		p.depth--
		return a, true
	}
}

// skip validates one value at p.i and moves past it.
func (p *parser) skip() bool {
	if p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		end, _ := p.stringEnd()
		if end < 0 {
			return false
		}
		if p.memo != nil && end-p.i >= longString {
			p.memo.learnEnd(p.b, p.i, end)
		}
		p.i = end + 1
		return true
	case c == '{' || c == '[':
		if p.depth++; p.depth > maxDepth {
			return false
		}
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		p.i++
		p.ws()
		if p.lit(close) {
			p.depth--
			return true
		}
		for {
			if c == '{' {
				if p.i >= len(p.b) || p.b[p.i] != '"' {
					return false
				}
				end, _ := p.stringEnd()
				if end < 0 {
					return false
				}
				p.i = end + 1
				p.ws()
				if !p.lit(':') {
					return false
				}
				p.ws()
			}
			if !p.skip() {
				return false
			}
			p.ws()
			if p.lit(',') {
				p.ws()
				continue
			}
			if !p.lit(close) {
				return false
			}
			p.depth--
			return true
		}
	case c == 't':
		return p.word("true")
	case c == 'f':
		return p.word("false")
	case c == 'n':
		return p.word("null")
	default:
		return p.number()
	}
}

// number moves past one number of JSON's grammar.
func (p *parser) number() bool {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	p.i = i
	return true
}

// stringEnd finds the closing quote of the string starting at p.i,
// checking its escapes and rejecting control bytes. simple means the
// string holds only printable ASCII and no escape, so its bytes are its
// value. end is -1 for an invalid string.
func (p *parser) stringEnd() (end int, simple bool) {
	b := p.b
	simple = true
	for i := p.i + 1; i < len(b); i++ {
		// Eight bytes at a time up to the next byte to look at (inline:
		// a call per run cost more than the run in wasm).
		for i+8 <= len(b) {
			m := specialMask(load64(b, i))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
			break
		}
		if i >= len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			return i, simple
		case c == '\\':
			simple = false
			i++
			if i >= len(b) {
				return -1, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !hex4(b[i+1:i+5]) {
					return -1, false
				}
				i += 4
			default:
				return -1, false
			}
		case c < 0x20:
			return -1, false
		case c >= 0x80:
			simple = false
		}
	}
	return -1, false
}

func hex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func u4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// str decodes the string at p.i, as encoding/json does: invalid UTF-8
// and lone surrogates become U+FFFD.
func (p *parser) str() (string, bool) {
	end, simple := p.stringEnd()
	if end < 0 {
		return "", false
	}
	return p.decodeTo(end, simple)
}

// decodeTo decodes the string from p.i to its closing quote at end.
func (p *parser) decodeTo(end int, simple bool) (string, bool) {
	s := p.b[p.i+1 : end]
	p.i = end + 1
	if simple {
		return string(s), true
	}
	if out, ok := decodeWords(s); ok {
		return out, true
	}
	return decodeRunes(s), true
}

// decodeWords decodes the inside of a valid string token eight bytes at
// a time, stores and all, with no call per escape: a text block holding
// a JSON document has an escape every few bytes (its quotes), and inside
// wasm a call per escape (IndexByte, append) cost four times the whole
// decoding (7.2 ms per MiB against 1.6). ok is false for a string this
// path leaves to decodeRunes: one with a \u escape, or with invalid
// UTF-8 (which must become U+FFFD).
func decodeWords(s []byte) (string, bool) {
	out := uninit(len(s) + 8) // room for the last word's store
	w, r := 0, 0
	var high uint64 // any byte >= 0x80 seen
	for r+8 <= len(s) {
		x := load64(s, r)
		store64(out, w, x)
		high |= x
		m := byteMask(x, '\\')
		if m == 0 {
			w += 8
			r += 8
			continue
		}
		k := bits.TrailingZeros64(m) >> 3
		w += k
		r += k
		c, ok := unescape(s, r)
		if !ok {
			return "", false
		}
		out[w] = c
		w++
		r += 2
	}
	for r < len(s) {
		c := s[r]
		high |= uint64(c)
		if c == '\\' {
			var ok bool
			if c, ok = unescape(s, r); !ok {
				return "", false
			}
			r++
		}
		out[w] = c
		w++
		r++
	}
	out = out[:w]
	if high&0x8080808080808080 != 0 && !utf8.Valid(out) {
		return "", false
	}
	if w == 0 {
		return "", true
	}
	return unsafe.String(&out[0], w), true
}

// unescape is the byte the escape at s[r] (a backslash) stands for; ok
// is false for \u (and for an escape cut off at the end).
func unescape(s []byte, r int) (byte, bool) {
	if r+1 >= len(s) {
		return 0, false
	}
	switch e := s[r+1]; e {
	case 'n':
		return '\n', true
	case 't':
		return '\t', true
	case 'r':
		return '\r', true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'u':
		return 0, false
	default: // " \ /
		return e, true
	}
}

// decodeRunes decodes the inside of a valid string token rune by rune,
// as encoding/json does: invalid UTF-8 and lone surrogates become U+FFFD.
func decodeRunes(s []byte) string {
	out := make([]byte, 0, len(s))
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			switch s[r+1] {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				rr := u4(s[r+2 : r+6])
				r += 6
				if utf16.IsSurrogate(rr) {
					if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' && hex4(s[r+2:r+6]) {
						if dec := utf16.DecodeRune(rr, u4(s[r+2:r+6])); dec != utf8.RuneError {
							out = utf8.AppendRune(out, dec)
							r += 6
							continue
						}
					}
					rr = utf8.RuneError
				}
				out = utf8.AppendRune(out, rr)
				continue
			default: // " \ /
				out = append(out, s[r+1])
			}
			r += 2
		case c < utf8.RuneSelf:
			end := r + 1
			if i := bytes.IndexByte(s[r+1:], '\\'); i >= 0 {
				end += i
			} else {
				end = len(s)
			}
			for k := r + 1; k < end; k++ {
				if s[k] >= utf8.RuneSelf {
					end = k
					break
				}
			}
			out = append(out, s[r:end]...)
			r = end
		default:
			rr, size := utf8.DecodeRune(s[r:])
			if rr == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, s[r:r+size]...)
			}
			r += size
		}
	}
	if len(out) == 0 {
		return ""
	}
	return unsafe.String(&out[0], len(out)) // out is ours alone: no copy
}

// uninit is n bytes of memory not cleared first (every byte is written
// before it is read): clearing a fresh 10 MiB buffer cost more than a
// tenth of decoding into it. strings.Builder allocates that way.
func uninit(n int) []byte {
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte(0)
	return unsafe.Slice(unsafe.StringData(sb.String()), n)
}

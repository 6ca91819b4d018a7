package redact

import "strings"

// Percent-encoded and JSON-escaped text. A connection string passed as
// a query value (?conn=redis%3A%2F%2Fdefault%3Ahunter2%40cache) or a
// URL written by a JSON encoder (\u0026) hides its separators from every
// rule: the password between the escapes reads as a word. The shape
// stage decodes the URL-ish span around such a run (%XX, '+' as a blank,
// \uXXXX), runs the whole redaction on the decoded text (known values
// aside), and maps each edit back onto the original bytes: an edit
// covers every escape that made one of its decoded bytes, so the
// original keeps its own encoding around the marker.

// maxDecode: text decoded this many times is not decoded again (double
// encoding, %253A, is decoded once more; no further).
const maxDecode = 2

// maxSpan bounds the span decoded around a run, each side.
const maxSpan = 8 << 10

// encoded: the run s[a:b] holds a percent escape, or a \u escape joins
// it to what comes before.
func encoded(s string, a, b int) bool {
	for i := strings.IndexByte(s[a:b], '%'); i >= 0; {
		if p := a + i; p+3 <= b && isHex(s[p+1:p+3]) {
			return true
		}
		k := strings.IndexByte(s[a+i+1:b], '%')
		if k < 0 {
			break
		}
		i += k + 1
	}
	return a > 0 && s[a-1] == '\\' && a+5 <= b && s[a] == 'u' && isHex(s[a+1:a+5])
}

// urlByte: a byte a URL or a query value holds (RFC 3986's unreserved
// and reserved sets, brackets and quotes aside).
func urlByte(c byte) bool {
	return runByte[c] || strings.IndexByte(":/?#@!$&()*+,;", c) >= 0
}

// uEscape is the length of the \u escape (any run of backslashes, u,
// four hex digits) at s[i:], or 0.
func uEscape(s string, i int) int {
	k := i
	for k < len(s) && s[k] == '\\' {
		k++
	}
	if k == i || k+5 > len(s) || s[k] != 'u' || !isHex(s[k+1:k+5]) {
		return 0
	}
	return k + 5 - i
}

// urlSpan widens the run s[a:b] to the URL-ish span around it.
func urlSpan(s string, a, b int) (int, int) {
	lo := a
	for lo > 0 && a-lo < maxSpan {
		if urlByte(s[lo-1]) {
			lo--
			continue
		}
		if s[lo-1] == '\\' {
			k := lo - 1
			for k > 0 && s[k-1] == '\\' {
				k--
			}
			if uEscape(s, k) > 0 {
				lo = k
				continue
			}
		}
		break
	}
	hi := b
	for hi < len(s) && hi-b < maxSpan {
		if urlByte(s[hi]) {
			hi++
		} else if n := uEscape(s, hi); n > 0 {
			hi += n
		} else {
			break
		}
	}
	return lo, hi
}

// percentDecode decodes src: %XX, '+' as a blank, and \uXXXX below 0x80.
// pos[i] is the offset in src where decoded byte i came from, and
// pos[len(dec)] is len(src): decoded bytes [i, j) came from src[pos[i]:pos[j]].
func percentDecode(src string) (dec string, pos []int) {
	var b strings.Builder
	b.Grow(len(src))
	pos = make([]int, 0, len(src)+1)
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '%' && i+3 <= len(src) && isHex(src[i+1:i+3]):
			pos = append(pos, i)
			b.WriteByte(hexByte(src[i+1])<<4 | hexByte(src[i+2]))
			i += 3
			continue
		case c == '+':
			pos = append(pos, i)
			b.WriteByte(' ')
			i++
			continue
		case c == '\\':
			if n := uEscape(src, i); n > 0 {
				h := src[i+n-4 : i+n]
				if v := int(hexByte(h[0]))<<12 | int(hexByte(h[1]))<<8 | int(hexByte(h[2]))<<4 | int(hexByte(h[3])); v < 0x80 {
					pos = append(pos, i)
					b.WriteByte(byte(v))
					i += n
					continue
				}
			}
		}
		pos = append(pos, i)
		b.WriteByte(c)
		i++
	}
	pos = append(pos, len(src))
	return b.String(), pos
}

func hexByte(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// decodeSpan decodes the span around the run s[a:b], redacts the
// decoded text, and returns its edits on s and where the span ends.
func decodeSpan(s string, a, b, depth int) ([]edit, int) {
	lo, hi := urlSpan(s, a, b)
	dec, pos := percentDecode(s[lo:hi])
	if dec == s[lo:hi] {
		return nil, hi
	}
	p := newPass(dec)
	p.depth = depth + 1
	p.scan()
	p.rules()
	p.unnamed()
	var out []edit
	for _, e := range p.t.edits {
		repl := e.repl
		if len(repl) < 2 || repl[0] != '[' || repl[len(repl)-1] != ']' || strings.ContainsAny(repl, "\"\\") {
			repl = Marker
		}
		out = append(out, edit{lo + pos[e.start], lo + pos[e.end], repl})
	}
	return out, hi
}

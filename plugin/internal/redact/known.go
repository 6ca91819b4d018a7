package redact

import (
	"strings"
	"unicode/utf8"
)

// MinKnownRun is the shortest run of an own value (see NewOwn) that is
// redacted wherever it occurs: a model that read the hook secret can
// print any part of it, and two halves make the whole. 12 bytes of a
// random value are never in clean text by chance; fewer than that of a
// 64-hex secret leave 52 bytes to guess.
const MinKnownRun = 12

// knownSet finds every known value in one pass, however many there are,
// ASCII case-insensitively, across a line break (a value printed split
// over two lines) and, in a text holding JSON escapes, on the text with
// them decoded as well (a value written \u0066\u0030...).
//
// An own value's every 4-byte piece, at every offset, goes in a filter;
// a whole value's first four. A run of 7 bytes or more of a value holds
// a whole 4-byte block of the text at an offset divisible by 4: the text
// is read a block at a time, each block tested against the filter, and
// a hit is extended both ways while the bytes match. A run of an own
// value MinKnownRun long or more is redacted, and a whole value of any
// kind. That costs about a quarter of a search per byte, and one search
// for all values.
type knownSet struct {
	vals []string // as given, longest first
	low  []string // vals ASCII lower-cased
	own  []bool   // vals[i] is redacted by runs, else whole only
	// quote: a value holds a '"', which JSON writes \" (decoded too).
	quote bool
	// bloom filters the pieces before the map; 64 Kibit keeps it sparse
	// for the 64 KiB of values a host hands over at most.
	bloom []uint64
	// at maps a piece to the values holding it at offset off.
	at map[uint32][]knownPiece
}

type knownPiece struct{ val, off int }

const knownMul = 0x9E3779B1

// maxRepeat bounds the offsets of one piece in one value.
const maxRepeat = 4

func newKnownSet(vals []string, own []bool) *knownSet {
	ks := &knownSet{vals: vals, own: own, low: make([]string, len(vals)), bloom: make([]uint64, 1<<16>>6),
		at: map[uint32][]knownPiece{}}
	for v, k := range vals {
		ks.low[v] = foldString(k)
		ks.quote = ks.quote || strings.IndexByte(k, '"') >= 0
		n := 4
		if own[v] {
			n = len(k) - 3
		}
		seen := map[uint32]int{}
		for off := 0; off < n; off++ {
			w := le32(ks.low[v], off)
			// A piece a value repeats (a low-entropy token: "0000...")
			// is filed at its first maxRepeat offsets only: every block
			// of such text would otherwise try each one.
			if seen[w]++; seen[w] > maxRepeat {
				continue
			}
			h := w * knownMul
			ks.bloom[h>>22] |= 1 << (h >> 16 & 63)
			ks.at[w] = append(ks.at[w], knownPiece{v, off})
		}
	}
	return ks
}

func le32(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

func fold32(s string, i int) uint32 {
	return uint32(lowerTab[s[i]]) | uint32(lowerTab[s[i+1]])<<8 | uint32(lowerTab[s[i+2]])<<16 | uint32(lowerTab[s[i+3]])<<24
}

func foldString(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerTab[c]
	}
	return string(b)
}

// spans returns the stretches of s to redact, sorted and not
// overlapping: the runs found in s and, when s holds \u or \/ escapes,
// those found in s with its escapes decoded, mapped back to s.
func (ks *knownSet) spans(s string) [][2]int {
	out := ks.runs(s, nil)
	if d, ok := decodeEscapes(s, ks.quote); ok {
		out = mergeSpans(out, ks.runs(d.s, d))
	}
	return out
}

// runs finds the runs in s (the decoded text of d, when d is set, whose
// spans are given in d's source).
func (ks *knownSet) runs(s string, d *decoded) [][2]int {
	var out [][2]int
	// last is the run last taken, to pass over its other blocks.
	var last struct{ val, diag, end int }
	last.val = -1
	for q := 0; q+4 <= len(s); q += 4 {
		w := fold32(s, q)
		h := w * knownMul
		if ks.bloom[h>>22]&(1<<(h>>16&63)) == 0 {
			continue
		}
		for _, pc := range ks.at[w] {
			if pc.val == last.val && q-pc.off == last.diag && q < last.end {
				continue
			}
			a, b, ok := ks.extend(s, q, pc)
			if !ok {
				continue
			}
			last.val, last.diag, last.end = pc.val, q-pc.off, b
			if d != nil {
				a, b = d.from[a], d.to[b-1]
			}
			out = mergeSpans(out, [][2]int{{a, b}})
		}
	}
	return out
}

// extend grows the hit of piece pc at block q of s both ways while the
// bytes match the value, stepping over line breaks, and tells whether
// the run is one to redact: MinKnownRun bytes of an own value or the
// whole value, and not the text of a marker.
func (ks *knownSet) extend(s string, q int, pc knownPiece) (a, b int, ok bool) {
	v := ks.low[pc.val]
	a, ja := q, pc.off
	for a > 0 && ja > 0 {
		if lowerTab[s[a-1]] == v[ja-1] {
			a, ja = a-1, ja-1
		} else if k := breakBefore(s, a); k > 0 && a-k > 0 && lowerTab[s[a-k-1]] == v[ja-1] {
			a -= k
		} else {
			break
		}
	}
	b, jb := q+4, pc.off+4
	for b < len(s) && jb < len(v) {
		if lowerTab[s[b]] == v[jb] {
			b, jb = b+1, jb+1
		} else if k := breakAt(s, b); k > 0 && b+k < len(s) && lowerTab[s[b+k]] == v[jb] {
			b += k
		} else {
			break
		}
	}
	whole := ja == 0 && jb == len(v)
	if !whole && (!ks.own[pc.val] || jb-ja < MinKnownRun) {
		return 0, 0, false
	}
	// A run that is a marker's text is left, as New leaves a value that
	// is: redacting it would take markers apart on every pass.
	if strings.Contains(markerLower, v[ja:jb]) {
		return 0, 0, false
	}
	return a, b, true
}

var markerLower = foldString(markerText)

// breakAt is the length of the line break at s[i:]: \n or \r\n, as bytes
// or as JSON escapes (any number of backslashes: an escape escaped
// again), else 0.
func breakAt(s string, i int) int {
	n := escOrByte(s, i, 'r')
	if m := escOrByte(s, i+n, 'n'); m > 0 {
		return n + m
	}
	return 0
}

// escOrByte is the length of c at s[i:], as the byte ('\r', '\n') or as
// backslashes and the letter, else 0.
func escOrByte(s string, i int, letter byte) int {
	if i >= len(s) {
		return 0
	}
	if (letter == 'n' && s[i] == '\n') || (letter == 'r' && s[i] == '\r') {
		return 1
	}
	j := i
	for j < len(s) && s[j] == '\\' {
		j++
	}
	if j > i && j < len(s) && s[j] == letter {
		return j + 1 - i
	}
	return 0
}

// breakBefore is the length of the line break that ends at s[:i], else 0.
func breakBefore(s string, i int) int {
	n := escOrByteBefore(s, i, 'n')
	if n == 0 {
		return 0
	}
	return n + escOrByteBefore(s, i-n, 'r')
}

func escOrByteBefore(s string, i int, letter byte) int {
	if i <= 0 {
		return 0
	}
	if (letter == 'n' && s[i-1] == '\n') || (letter == 'r' && s[i-1] == '\r') {
		return 1
	}
	if s[i-1] != letter {
		return 0
	}
	j := i - 1
	for j > 0 && s[j-1] == '\\' {
		j--
	}
	if j == i-1 {
		return 0
	}
	return i - j
}

// mergeSpans merges two sorted lists of spans, joining those that
// overlap.
func mergeSpans(a, b [][2]int) [][2]int {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := make([][2]int, 0, len(a)+len(b))
	push := func(z [2]int) {
		if n := len(out); n > 0 && z[0] < out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], z[1])
		} else {
			out = append(out, z)
		}
	}
	for len(a) > 0 || len(b) > 0 {
		if len(b) == 0 || len(a) > 0 && a[0][0] <= b[0][0] {
			push(a[0])
			a = a[1:]
		} else {
			push(b[0])
			b = b[1:]
		}
	}
	return out
}

// decoded is a text with its JSON escapes decoded: byte i of s came from
// source bytes [from[i], to[i]).
type decoded struct {
	s        string
	from, to []int
}

// decodeEscapes decodes the \uXXXX, \/, \", \n, \r and \t escapes of s,
// leniently: any number of backslashes make one escape (JSON inside a
// JSON string escapes its escapes, and the store's index decodes them),
// and anything else stays as it is. ok is false, and nothing is built,
// when s holds no \u or \/ escape (nor \", with quote): the other
// escapes do not hide a value (a line break is stepped over in s itself).
func decodeEscapes(s string, quote bool) (*decoded, bool) {
	if !strings.Contains(s, `\u`) && !strings.Contains(s, `\/`) && !(quote && strings.Contains(s, `\"`)) {
		return nil, false
	}
	d := &decoded{from: make([]int, 0, len(s)), to: make([]int, 0, len(s))}
	b := make([]byte, 0, len(s))
	var u [utf8.UTFMax]byte
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b, d.from, d.to = append(b, s[i]), append(d.from, i), append(d.to, i+1)
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '\\' {
			j++
		}
		var out []byte
		n := 0
		if j < len(s) {
			switch c := s[j]; c {
			case 'u':
				if r, ok := hex4(s[j+1:]); ok {
					out, n = u[:utf8.EncodeRune(u[:], r)], j+5-i
				}
			case '/', '"', 'n', 'r', 't':
				u[0] = escByte(c)
				out, n = u[:1], j+1-i
			}
		}
		if n == 0 {
			out, n = []byte{'\\'}, 1
		}
		for _, c := range out {
			b, d.from, d.to = append(b, c), append(d.from, i), append(d.to, i+n)
		}
		i += n
	}
	d.s = string(b)
	return d, true
}

// escByte is the byte a one-letter escape stands for.
func escByte(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c
}

// hex4 decodes 4 hex digits at the start of s.
func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for i := 0; i < 4; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// known redacts the runs and whole values ks finds in the input, before
// any other stage (there is no edit yet).
func (p *pass) known(ks *knownSet) {
	if ks == nil {
		return
	}
	for _, sp := range ks.spans(p.t.in) {
		p.t.edits = append(p.t.edits, edit{sp[0], sp[1], Marker})
		p.n++
	}
	p.t.reindex()
}

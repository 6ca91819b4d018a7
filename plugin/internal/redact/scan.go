package redact

import (
	"strings"
	"sync"
)

// anchor is one literal the scanner finds, for the rules it anchors and
// the JSON-key scanner.
type anchor struct {
	lit string // lower-case, 2 bytes or more
	// class, instead of lit: four sets of lower-case bytes, one per
	// byte of a 4-byte anchor (Discord's 1200 first four bytes).
	class *[4]string
	n     int   // its length
	rules []int // indexes in rules, ascending
	// json: a sensitive word, which may end a JSON key; esc: `\u`, a JSON
	// escape, which may be part of one.
	json, esc bool
}

// The scanner reads each byte once and keeps the last four, folded
// (c|0x20: A-Z to a-z, and a few other bytes onto others, which only
// costs a false candidate), in a word. Anchors of four bytes or more are
// looked up by their first four: a 256 Kbit filter on a hash of the word
// rejects nearly every position with one load, and a small
// open-addressed table holds the rest. The few anchors of two or three
// bytes are looked up by their first two in a table of pairs, which only
// those few pairs mark; a common pair that starts a long anchor ("to" of
// token) costs nothing. A candidate is then compared in full, without
// case.
type scanner struct {
	anchors []anchor
	maxLen  int
	pair    [1 << 16]uint8 // first two bytes, folded -> index+1 into short
	short   [][]int32      // anchors of 2 or 3 bytes
	bloom   [1 << bloomBits >> 6]uint64
	keys    []uint32 // first four bytes, folded; slot empty when vals is 0
	vals    []int32  // index+1 into long
	long    [][]int32
	mask    uint32
}

const (
	hashMul   = 0x9E3779B1
	bloomBits = 18
)

func (sc *scanner) slot(w uint32) uint32 { return (w * hashMul) >> 8 & sc.mask }

func fold4(s string) uint32 {
	return uint32(s[0]|0x20)<<24 | uint32(s[1]|0x20)<<16 | uint32(s[2]|0x20)<<8 | uint32(s[3]|0x20)
}

func newScanner(anchors []anchor) *scanner {
	sc := &scanner{anchors: anchors}
	n4 := 0
	for _, a := range anchors {
		sc.maxLen = max(sc.maxLen, a.n)
		if a.class != nil {
			n4 += len(a.class[0]) * len(a.class[1]) * len(a.class[2]) * len(a.class[3])
		} else if a.n >= 4 {
			n4++
		}
	}
	size := 1
	for size < 2*n4 {
		size *= 2
	}
	sc.keys, sc.vals, sc.mask = make([]uint32, size), make([]int32, size), uint32(size-1)
	sc.long = make([][]int32, 0, n4)
	one := make([][]int32, len(anchors)) // a shared list for an anchor's own keys
	long := func(w uint32, id int) {
		h := w * hashMul
		sc.bloom[h>>(32-bloomBits+6)] |= 1 << (h >> (32 - bloomBits) & 63)
		s := sc.slot(w)
		for sc.vals[s] != 0 && sc.keys[s] != w {
			s = (s + 1) & sc.mask
		}
		if sc.vals[s] == 0 {
			if one[id] == nil {
				one[id] = []int32{int32(id)}
			}
			sc.long = append(sc.long, one[id][:1:1])
			sc.keys[s], sc.vals[s] = w, int32(len(sc.long))
			return
		}
		sc.long[sc.vals[s]-1] = append(sc.long[sc.vals[s]-1], int32(id))
	}
	for id, a := range anchors {
		switch {
		case a.class != nil:
			for _, c0 := range []byte(a.class[0]) {
				for _, c1 := range []byte(a.class[1]) {
					for _, c2 := range []byte(a.class[2]) {
						for _, c3 := range []byte(a.class[3]) {
							long(uint32(c0|0x20)<<24|uint32(c1|0x20)<<16|uint32(c2|0x20)<<8|uint32(c3|0x20), id)
						}
					}
				}
			}
		case a.n < 2:
			panic("redact: anchor shorter than 2 bytes: " + a.lit)
		case a.n < 4:
			p := uint16(a.lit[0]|0x20)<<8 | uint16(a.lit[1]|0x20)
			if sc.pair[p] == 0 {
				if len(sc.short) == 255 {
					panic("redact: more than 255 short anchor pairs")
				}
				sc.short = append(sc.short, nil)
				sc.pair[p] = uint8(len(sc.short))
			}
			sc.short[sc.pair[p]-1] = append(sc.short[sc.pair[p]-1], int32(id))
		default:
			long(fold4(a.lit), id)
		}
	}
	return sc
}

// scan calls hit for every occurrence of every anchor that starts in
// s[from:to] (it may end after to), comparing ASCII letters without case,
// in order of position. Occurrences may overlap.
func (sc *scanner) scan(s string, from, to int, hit func(p int, a int32)) {
	to = min(to, len(s))
	if from >= to {
		return
	}
	end := min(len(s), to+3)
	var w uint32
	for i, c := range []byte(s[from:end]) {
		w = w<<8 | uint32(c|0x20)
		h := w * hashMul
		if sc.bloom[h>>(32-bloomBits+6)]&(1<<(h>>(32-bloomBits)&63)) != 0 || sc.pair[uint16(w>>16)] != 0 {
			if p := from + i - 3; p >= from && p < to {
				sc.check(s, p, w, hit)
			}
		}
	}
	// The last three positions, with nothing after them.
	for i := end; i < end+3; i++ {
		w <<= 8
		if p := i - 3; p >= from && p < to && sc.pair[uint16(w>>16)] != 0 {
			sc.check(s, p, w, hit)
		}
	}
}

// check reports the anchors at s[p:], whose first four bytes (folded, 0
// past the end) are w.
func (sc *scanner) check(s string, p int, w uint32, hit func(p int, a int32)) {
	if k := sc.pair[uint16(w>>16)]; k != 0 {
		for _, id := range sc.short[k-1] {
			if lit := sc.anchors[id].lit; lowerTab[s[p]] == lit[0] && lowerTab[s[p+1]] == lit[1] &&
				(len(lit) == 2 || p+2 < len(s) && lowerTab[s[p+2]] == lit[2]) {
				hit(p, id)
			}
		}
	}
	h := w * hashMul
	if sc.bloom[h>>(32-bloomBits+6)]&(1<<(h>>(32-bloomBits)&63)) == 0 {
		return
	}
	for sl := sc.slot(w); sc.vals[sl] != 0; sl = (sl + 1) & sc.mask {
		if sc.keys[sl] != w {
			continue
		}
		for _, id := range sc.long[sc.vals[sl]-1] {
			a := &sc.anchors[id]
			if p+a.n > len(s) {
				continue
			}
			if a.class != nil && inClass(s[p:p+4], a.class) || a.class == nil && hasLowerPrefix(s[p:], a.lit) {
				hit(p, id)
			}
		}
		return
	}
}

// theScanner finds every rule's anchors, the sensitive words that may
// end a JSON key, and JSON's \u escape. Its tables are built the first
// time a text is redacted, not when the plugin starts.
var theScanner = sync.OnceValue(func() *scanner { return newScanner(buildAnchors()) })

func buildAnchors() []anchor {
	idx := make(map[string]int, 512)
	out := make([]anchor, 0, 512)
	get := func(lit string) *anchor {
		i, ok := idx[lit]
		if !ok {
			i = len(out)
			idx[lit] = i
			out = append(out, anchor{lit: lit, n: len(lit)})
		}
		return &out[i]
	}
	for ri, ru := range rules {
		if ru.class != nil {
			out = append(out, anchor{class: ru.class, n: 4, rules: []int{ri}})
		}
		for _, a := range ru.anchors {
			for i := 0; i < len(a); i++ {
				if c := a[i]; c == '[' || c == ']' || c == '"' || c == '\\' || c >= 'A' && c <= 'Z' {
					panic("redact: anchor with a bracket, quote, backslash or upper-case letter: " + a)
				}
			}
			an := get(a)
			if n := len(an.rules); n == 0 || an.rules[n-1] != ri {
				an.rules = append(an.rules, ri)
			}
		}
	}
	for _, w := range sensitiveWords {
		get(w).json = true
	}
	get(`\u`).esc = true
	return out
}

// inClass reports whether the four bytes of s, lower-cased, are in the
// class.
func inClass(s string, class *[4]string) bool {
	for i := 0; i < 4; i++ {
		if strings.IndexByte(class[i], lowerTab[s[i]]) < 0 {
			return false
		}
	}
	return true
}

// lowerTab maps each byte to itself with A-Z lower-cased.
var lowerTab = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] = byte(i) + ('a' - 'A')
		}
	}
	return
}()

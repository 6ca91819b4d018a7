package jsonfast

import (
	"math/bits"
	"encoding/json"
	"unsafe"
)

// Raw is a JSON value not decoded yet: Expand decodes one level of it.
// A tool response is read for a token, for its text and for its shape;
// each needs a few members of it, and decoding the whole of a 10 MiB
// result into maps to read one key is where the time went.
type Raw []byte

// Expander decodes values one level at a time, as Decode would decode
// them whole: an object becomes a map[string]any and an array a []any
// whose members are Raw, a string its value, anything else what Decode
// gives. Large strings are decoded once per Expander (the text of a big
// content block is read for both its token and its words). The zero
// value is ready to use; it is not safe for concurrent use.
type Expander struct {
	strs map[*byte]memo
	// valid are byte ranges this Expander has validated as JSON: a value
	// inside one is split without checking it again (a 10 MiB text block
	// would otherwise be scanned once per level it sits under).
	valid []span
}

type span struct{ lo, hi uintptr }

func (e *Expander) isValid(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	hi := lo + uintptr(len(b))
	for _, s := range e.valid {
		if lo >= s.lo && hi <= s.hi {
			return true
		}
	}
	return false
}

func (e *Expander) markValid(b []byte) {
	if len(b) == 0 || e.isValid(b) {
		return
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	e.valid = append(e.valid, span{lo, lo + uintptr(len(b))})
}

// Valid tells e that b is known to be valid JSON (it came from a payload
// already checked whole), so expanding it does not check it again.
func (e *Expander) Valid(b []byte) { e.markValid(b) }

type memo struct {
	n int
	s string
}

// memoMin: strings shorter than this are cheaper to decode again.
const memoMin = 4 << 10

// Expand decodes b's top level. Its error is Decode's for b.
func (e *Expander) Expand(b []byte) (any, error) {
	p := parser{b: b}
	p.ws()
	if p.i >= len(b) {
		return Decode(b)
	}
	switch b[p.i] {
	case '{':
		var members []Member
		var ok bool
		if e.isValid(b) {
			members, ok = objectValid(b)
		} else if members, ok = Object(b); ok {
			e.markValid(b)
		}
		if !ok {
			return Decode(b)
		}
		m := make(map[string]any, len(members))
		for _, mb := range members {
			m[mb.Key] = Raw(mb.Value) // a repeated key: the last wins, as in Decode
		}
		return m, nil
	case '[':
		var elems [][]byte
		var ok bool
		if e.isValid(b) {
			elems, ok = arrayValid(b)
		} else if elems, ok = Array(b); ok {
			e.markValid(b)
		}
		if !ok {
			return Decode(b)
		}
		a := make([]any, len(elems))
		for i, el := range elems {
			a[i] = Raw(el)
		}
		return a, nil
	case '"':
		t := b[p.i:]
		for len(t) > 0 && isSpace(t[len(t)-1]) {
			t = t[:len(t)-1]
		}
		if len(t) >= memoMin {
			if m, ok := e.strs[unsafe.SliceData(t)]; ok && m.n == len(t) {
				return m.s, nil
			}
		}
		var s string
		var ok bool
		if e.isValid(t) {
			s, ok = stringValid(t)
		} else {
			s, ok = String(t)
		}
		if !ok {
			return Decode(b)
		}
		if len(t) >= memoMin {
			if e.strs == nil {
				e.strs = map[*byte]memo{}
			}
			e.strs[unsafe.SliceData(t)] = memo{len(t), s}
		}
		return s, nil
	}
	return Decode(b)
}

// Value expands v when it is Raw, and returns it as is otherwise; ok is
// false for a Raw that does not decode.
func (e *Expander) Value(v any) (any, bool) {
	r, isRaw := v.(Raw)
	if !isRaw {
		return v, true
	}
	x, err := e.Expand(r)
	return x, err == nil
}

// Full decodes v entirely, Raw members included: what Decode would have
// given for the whole value.
func (e *Expander) Full(v any) (any, error) {
	switch t := v.(type) {
	case Raw:
		return Decode(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			x, err := e.Full(c)
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			x, err := e.Full(c)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	}
	return v, nil
}

// Array returns the elements of b, which must be one valid JSON array
// (whitespace around it allowed), as raw bytes in order. ok is false
// when b is not one.
func Array(b []byte) (elems [][]byte, ok bool) {
	p := parser{b: b}
	p.ws()
	if !p.lit('[') {
		return nil, false
	}
	p.ws()
	if p.lit(']') {
		p.ws()
		return [][]byte{}, p.i == len(b)
	}
	for {
		vs := p.i
		if !p.skip() {
			return nil, false
		}
		elems = append(elems, b[vs:p.i:p.i])
		p.ws()
		if p.lit(',') {
			p.ws()
			continue
		}
		if !p.lit(']') {
			return nil, false
		}
		p.ws()
		return elems, p.i == len(b)
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

var _ json.Marshaler = Raw(nil)

// MarshalJSON writes the value as it came.
func (r Raw) MarshalJSON() ([]byte, error) { return r, nil }

// objectValid is Object for b known to be valid JSON: members are split
// by finding each value's end, not by checking it. ok is false where
// Object would leave the work to encoding/json (a key with an escape or
// a non-ASCII byte).
func objectValid(b []byte) (members []Member, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil, true
	}
	for i < len(b) {
		if b[i] != '"' {
			return nil, false
		}
		end := quoteEnd(b, i)
		if end < 0 {
			return nil, false
		}
		key := b[i+1 : end]
		for _, c := range key {
			if c == '\\' || c >= 0x80 || c < 0x20 {
				return nil, false
			}
		}
		i = skipSpace(b, end+1)
		if i >= len(b) || b[i] != ':' {
			return nil, false
		}
		i = skipSpace(b, i+1)
		vEnd := valueEnd(b, i)
		if vEnd < 0 {
			return nil, false
		}
		members = append(members, Member{Key: string(key), Value: b[i:vEnd:vEnd]})
		i = skipSpace(b, vEnd)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		return members, i < len(b) && b[i] == '}'
	}
	return nil, false
}

// arrayValid is Array for b known to be valid JSON.
func arrayValid(b []byte) (elems [][]byte, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return [][]byte{}, true
	}
	for i < len(b) {
		vEnd := valueEnd(b, i)
		if vEnd < 0 {
			return nil, false
		}
		elems = append(elems, b[i:vEnd:vEnd])
		i = skipSpace(b, vEnd)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		return elems, i < len(b) && b[i] == ']'
	}
	return nil, false
}

// stringValid decodes t, one string token known to be valid.
func stringValid(t []byte) (string, bool) {
	p := parser{b: t}
	return p.strValid()
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// quoteEnd is the index of the quote closing the string at b[i] (a
// quote), found by searching for quotes and counting the backslashes
// before each: no byte-by-byte check of what lies between.
func quoteEnd(b []byte, i int) int {
	// Eight bytes at a time to the next quote or backslash, with no call
	// per stop: an escaped document has one every few bytes.
	j := i + 1
	for j < len(b) {
		if j+8 <= len(b) {
			w := load64(b, j)
			m := byteMask(w, '"') | byteMask(w, '\\')
			if m == 0 {
				j += 8
				continue
			}
			j += bits.TrailingZeros64(m) >> 3
		}
		switch b[j] {
		case '"':
			return j
		case '\\':
			j += 2 // the escaped byte, whatever it is
		default:
			j++
		}
	}
	return -1
}

// valueEnd is the index just past the valid value starting at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		if e := quoteEnd(b, i); e >= 0 {
			return e + 1
		}
		return -1
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := quoteEnd(b, j)
				if e < 0 {
					return -1
				}
				j = e
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && !isSpace(b[j]) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

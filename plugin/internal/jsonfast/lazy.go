package jsonfast

import (
	"encoding/json"
	"math/bits"
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
// value is ready to use; it is not safe for concurrent use. Nesting is
// limited per level expanded, not for the whole value: a document nested
// deeper than encoding/json's limit still expands.
type Expander struct {
	strs map[*byte]memo
	// ends are the ends of long strings already found, by the address
	// of their opening quote: the text of a 10 MiB content block is
	// otherwise searched for its closing quote once by the payload's
	// check and again at each level split above it.
	ends map[uintptr]uintptr
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

// learnEnd records that the string whose quote is b[i] closes at b[end].
func (e *Expander) learnEnd(b []byte, i, end int) {
	if e.ends == nil {
		e.ends = map[uintptr]uintptr{}
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	e.ends[base+uintptr(i)] = base + uintptr(end)
}

// knownEnd is the end learnEnd recorded for the string at b[i], if it
// lies within b.
func (e *Expander) knownEnd(b []byte, i int) (int, bool) {
	if e == nil || e.ends == nil {
		return 0, false
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	end, ok := e.ends[base+uintptr(i)]
	if !ok || end-base >= uintptr(len(b)) {
		return 0, false
	}
	return int(end - base), true
}

// Object is the package's Object, which also teaches e where b's long
// strings end and that b is valid; b within bytes e knows are valid is
// split without checking it again. e may be nil.
func (e *Expander) Object(b []byte) (members []Member, ok bool) {
	if e != nil && e.isValid(b) {
		if members, ok = e.objectValid(b); ok {
			return members, true
		}
	}
	if members, ok = object(b, e); ok && e != nil {
		e.markValid(b)
	}
	return members, ok
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

// longString: strings at least this long have their ends remembered
// (Expander.ends). A variable only so that the fuzz test reaches the
// memo with short inputs.
var longString = memoMin

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
			members, ok = e.objectValid(b)
		} else {
			members, ok = e.Object(b)
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
			elems, ok = e.arrayValid(b)
		} else if elems, ok = array(b, e); ok {
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
func Array(b []byte) (elems [][]byte, ok bool) { return array(b, nil) }

func array(b []byte, memo *Expander) (elems [][]byte, ok bool) {
	p := parser{b: b, memo: memo}
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
func (e *Expander) objectValid(b []byte) (members []Member, ok bool) {
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
		end := e.quoteEnd(b, i)
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
		vEnd := e.valueEnd(b, i)
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
func (e *Expander) arrayValid(b []byte) (elems [][]byte, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return [][]byte{}, true
	}
	for i < len(b) {
		vEnd := e.valueEnd(b, i)
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
	// t is the whole token: it ends at its closing quote.
	if n := len(t); n >= 2 && t[0] == '"' && t[n-1] == '"' {
		p := parser{b: t}
		return p.decodeTo(n-1, plainRun(t, 1) == n-2)
	}
	return "", false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// quoteEnd is the index of the quote closing the string at b[i] (a
// quote). A string longer than longString is looked up in e (may be nil)
// before it is searched to its end, and learnt after.
func (e *Expander) quoteEnd(b []byte, i int) int {
	if end := quoteEndIn(b, i, min(len(b), i+longString)); end != -2 {
		return end
	}
	if end, ok := e.knownEnd(b, i); ok {
		return end
	}
	end := quoteEndIn(b, i, len(b))
	if e != nil && end >= 0 {
		e.learnEnd(b, i, end)
	}
	return end
}

// quoteEndIn searches b[i+1:lim] for the quote closing the string at
// b[i], skipping escaped bytes: no byte-by-byte check of what lies
// between. It returns -2 when lim < len(b) and the string goes on past
// it, -1 when the string is not closed in b.
func quoteEndIn(b []byte, i, lim int) int {
	// Eight bytes at a time to the next quote or backslash, with no call
	// per stop: an escaped document has one every few bytes.
	j := i + 1
	for j < lim {
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
	if lim < len(b) {
		return -2
	}
	return -1
}

// valueEnd is the index just past the valid value starting at b[i].
func (e *Expander) valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		if end := e.quoteEnd(b, i); end >= 0 {
			return end + 1
		}
		return -1
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end := e.quoteEnd(b, j)
				if end < 0 {
					return -1
				}
				j = end
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

package jsonfast

import (
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
}

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
		members, ok := Object(b)
		if !ok {
			return Decode(b)
		}
		m := make(map[string]any, len(members))
		for _, mb := range members {
			m[mb.Key] = Raw(mb.Value) // a repeated key: the last wins, as in Decode
		}
		return m, nil
	case '[':
		elems, ok := Array(b)
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
		s, ok := String(t)
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

package redact

import (
	"sort"
	"strings"
)

// edit replaces in[start:end] (never empty) with repl. Every repl is made
// of markers: it starts with '[', ends with ']', and holds no quote and no
// backslash. No anchor and no JSON key holds a bracket, so an anchor never
// straddles an edit and a key never contains one, and a JSON string
// scanner can step over an edit as over one plain byte. That is what lets
// every stage work on the input as the stages before it left it without
// that text ever being built.
type edit struct {
	start, end int
	repl       string
}

// text is the input with its edits applied: the text a stage sees, as the
// old sequential passes saw it after rebuilding. Offsets into it ("v
// offsets") differ from the input's after the first edit.
type text struct {
	in    string
	edits []edit // sorted, disjoint
	// off[k] is v offset minus input offset before edits[k];
	// off[len(edits)] after them all.
	off  []int
	vlen int
}

func newText(in string) text { return text{in: in, off: []int{0}, vlen: len(in)} }

func (t *text) reindex() {
	t.off = t.off[:0]
	d := 0
	for _, e := range t.edits {
		t.off = append(t.off, d)
		d += len(e.repl) - (e.end - e.start)
	}
	t.off = append(t.off, d)
	t.vlen = len(t.in) + d
}

// vs and ve are where edit k's repl starts and ends, in v offsets.
func (t *text) vs(k int) int { return t.edits[k].start + t.off[k] }
func (t *text) ve(k int) int { return t.edits[k].start + t.off[k] + len(t.edits[k].repl) }

// vpos is the v offset of input offset p, which is not inside an edit
// (it may be an edit's start or end).
func (t *text) vpos(p int) int {
	if len(t.edits) == 0 {
		return p
	}
	k := sort.Search(len(t.edits), func(k int) bool { return t.edits[k].start >= p })
	return p + t.off[k]
}

// overlaps reports whether input bytes [a, b) meet an edit.
func (t *text) overlaps(a, b int) bool {
	if len(t.edits) == 0 {
		return false
	}
	k := sort.Search(len(t.edits), func(k int) bool { return t.edits[k].end > a })
	return k < len(t.edits) && t.edits[k].start < b
}

// after is the first edit whose repl ends after v offset a.
func (t *text) after(a int) int {
	return sort.Search(len(t.edits), func(k int) bool { return t.ve(k) > a })
}

// slice is the text's bytes [a, b), in v offsets: a piece of the input
// when no edit lies in between, as it nearly always is.
func (t *text) slice(a, b int) string {
	if len(t.edits) == 0 {
		return t.in[a:b]
	}
	k := t.after(a)
	if k == len(t.edits) || t.vs(k) >= b {
		return t.in[a-t.off[k] : b-t.off[k]]
	}
	var sb strings.Builder
	sb.Grow(b - a)
	for a < b {
		if k == len(t.edits) || t.vs(k) >= b {
			sb.WriteString(t.in[a-t.off[k] : b-t.off[k]])
			break
		}
		vs := t.vs(k)
		if a < vs {
			sb.WriteString(t.in[a-t.off[k] : vs-t.off[k]])
			a = vs
		}
		z := min(b, t.ve(k))
		sb.WriteString(t.edits[k].repl[a-vs : z-vs])
		a = z
		k++
	}
	return sb.String()
}

// at is the text's byte at v offset i.
func (t *text) at(i int) byte {
	if len(t.edits) == 0 {
		return t.in[i]
	}
	k := t.after(i)
	if k < len(t.edits) && t.vs(k) <= i {
		return t.edits[k].repl[i-t.vs(k)]
	}
	return t.in[i-t.off[k]]
}

// apply makes changes (sorted, disjoint, in v offsets) on the text, and
// returns the edits that are new or grew. A change that meets an edit's
// repl is merged with it into one edit whose repl is the new text of the
// whole stretch: the input range both cover, as the sequential passes
// would have rewritten it.
func (t *text) apply(changes []edit) (fresh []edit) {
	if len(changes) == 0 {
		return nil
	}
	out := make([]edit, 0, len(t.edits)+len(changes))
	k := 0
	for i := 0; i < len(changes); {
		c := changes[i]
		for k < len(t.edits) && t.ve(k) <= c.start {
			out = append(out, t.edits[k])
			k++
		}
		// One group: the change, every repl it meets, every change
		// those meet, and so on.
		first := k
		gA, gB := c.start, c.end
		last := i
		for {
			if k < len(t.edits) && t.vs(k) < gB {
				gA, gB = min(gA, t.vs(k)), max(gB, t.ve(k))
				k++
				continue
			}
			if last+1 < len(changes) && changes[last+1].start < gB {
				last++
				gB = max(gB, changes[last].end)
				continue
			}
			break
		}
		e := edit{start: gA - t.off[first], end: gB - t.off[k]}
		if last == i && first == k {
			e.repl = c.repl
		} else {
			var sb strings.Builder
			pos := gA
			for _, ch := range changes[i : last+1] {
				sb.WriteString(t.slice(pos, ch.start))
				sb.WriteString(ch.repl)
				pos = ch.end
			}
			sb.WriteString(t.slice(pos, gB))
			e.repl = sb.String()
		}
		out = append(out, e)
		fresh = append(fresh, e)
		i = last + 1
	}
	out = append(out, t.edits[k:]...)
	t.edits = out
	t.reindex()
	return fresh
}

// String is the text.
func (t *text) String() string {
	if len(t.edits) == 0 {
		return t.in
	}
	return t.slice(0, t.vlen)
}

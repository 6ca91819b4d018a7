package redact

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// What a pattern's syntax tells about its matches, so that a rule runs
// its pattern as little as it can: a match that must start with one of
// the rule's anchors is tried once at each anchor, anchored, on just
// enough text (its longest match, when it has one), rather than looked
// for at every position of a window. Inside wasm a search costs about as
// much per byte it is given as per byte it reads.

// startsWithAnchor reports whether every match of re starts with
// one of anchors (compared without case, in ASCII: like every anchor, it
// does not see the Kelvin sign and the long s that (?i) also takes for
// k and s). It follows the pattern through
// a trie of the anchors: a way into the pattern that leaves the trie
// before it has read a whole anchor settles it, so the work is bounded by
// the anchors, not by the strings the pattern can match.
func startsWithAnchor(re *syntax.Regexp, anchors []string) bool {
	tr := newTrie(anchors)
	out, ok := tr.extend([]state{{0, true}}, re, 0)
	if !ok {
		return false
	}
	for _, st := range out {
		if !tr.end[st.node] {
			return false
		}
	}
	return true
}

// holdsAnchor reports whether every match of re holds one of anchors:
// some part every match goes through starts with one. A search for the
// next match can stop when no anchor is left ahead.
func holdsAnchor(re *syntax.Regexp, anchors []string) bool {
	return newTrie(anchors).holds(re, 0)
}

func (tr *trie) holds(re *syntax.Regexp, depth int) bool {
	if depth > 100 {
		return false
	}
	if out, ok := tr.extend([]state{{0, true}}, re, depth+1); ok {
		all := true
		for _, st := range out {
			all = all && tr.end[st.node]
		}
		if all {
			return true
		}
	}
	switch re.Op {
	case syntax.OpCapture:
		return tr.holds(re.Sub[0], depth+1)
	case syntax.OpPlus:
		return tr.holds(re.Sub[0], depth+1)
	case syntax.OpRepeat:
		return re.Min > 0 && tr.holds(re.Sub[0], depth+1)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !tr.holds(sub, depth+1) {
				return false
			}
		}
		return true
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if tr.holds(sub, depth+1) {
				return true
			}
		}
	}
	return false
}

// trie holds the anchors: node 0 is the root.
type trie struct {
	next []map[byte]int
	end  []bool // an anchor ends here
}

func newTrie(anchors []string) *trie {
	tr := &trie{next: []map[byte]int{{}}, end: []bool{false}}
	for _, a := range anchors {
		n := 0
		for i := 0; i < len(a); i++ {
			c, ok := tr.next[n][a[i]]
			if !ok {
				c = len(tr.next)
				tr.next = append(tr.next, map[byte]int{})
				tr.end = append(tr.end, false)
				tr.next[n][a[i]] = c
			}
			n = c
		}
		tr.end[n] = true
	}
	return tr
}

// state is where a way into the pattern stands in the trie; open means
// the pattern so far matched exactly that, so what comes next reads on.
// A state at an anchor's end is settled and reads no further.
type state struct {
	node int
	open bool
}

// extend returns the states sts lead to once re has matched: ok is false
// when a way leaves the trie before an anchor's end, or cannot be told.
func (tr *trie) extend(sts []state, re *syntax.Regexp, depth int) (out []state, ok bool) {
	if depth > 100 {
		return nil, false
	}
	out, open := tr.settle(sts)
	if len(open) == 0 {
		return out, true
	}
	var qs []state
	switch re.Op {
	case syntax.OpLiteral:
		qs, ok = tr.extendLiteral(open, re.Rune)
	case syntax.OpCharClass:
		qs, ok = tr.extendClass(open, re.Rune)
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		qs, ok = open, true
	case syntax.OpCapture:
		qs, ok = tr.extend(open, re.Sub[0], depth+1)
	case syntax.OpConcat:
		qs, ok = open, true
		for _, sub := range re.Sub {
			if qs, ok = tr.extend(qs, sub, depth+1); !ok {
				break
			}
		}
	case syntax.OpAlternate:
		qs, ok = tr.extendAlternate(open, re.Sub, depth)
	case syntax.OpQuest, syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		qs, ok = tr.extendRepeat(open, re, depth)
	}
	if !ok {
		return nil, false
	}
	return append(out, qs...), true
}

// settle splits sts into the states settled (at an anchor's end, or no
// longer open), returned closed, and those still open.
func (tr *trie) settle(sts []state) (settled, open []state) {
	for _, st := range sts {
		if st.open && !tr.end[st.node] {
			open = append(open, st)
		} else {
			settled = append(settled, state{st.node, false})
		}
	}
	return settled, open
}

// extendLiteral reads a literal's runes (lower-cased) from the open states.
func (tr *trie) extendLiteral(open []state, runes []rune) ([]state, bool) {
	qs := open
	for _, r := range runes {
		if r >= 0x80 {
			return nil, false
		}
		var ok bool
		if qs, ok = tr.extendByte(qs, byte(unicode.ToLower(r))); !ok {
			return nil, false
		}
	}
	return qs, true
}

// extendClass reads one byte of a character class (lower-cased) from
// every open state: every byte of the class must stay in the trie.
func (tr *trie) extendClass(open []state, ranges []rune) ([]state, bool) {
	var cs []byte
	seen := map[byte]bool{}
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1]-ranges[i] > 128 || ranges[i+1] >= 0x80 {
			return nil, false
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if c := byte(unicode.ToLower(r)); !seen[c] {
				seen[c] = true
				cs = append(cs, c)
			}
		}
	}
	var qs []state
	reached := map[int]bool{}
	for _, st := range open {
		for _, c := range cs {
			n, ok := tr.next[st.node][c]
			if !ok {
				return nil, false
			}
			if !reached[n] {
				reached[n] = true
				qs = append(qs, state{n, true})
			}
		}
	}
	return qs, true
}

// extendAlternate is every alternative's states, in order.
func (tr *trie) extendAlternate(open []state, subs []*syntax.Regexp, depth int) ([]state, bool) {
	var out []state
	for _, sub := range subs {
		qs, ok := tr.extend(open, sub, depth+1)
		if !ok {
			return nil, false
		}
		out = append(out, qs...)
	}
	return out, true
}

// extendRepeat reads a repetition (?, *, +, {m,n}) from the open states.
func (tr *trie) extendRepeat(open []state, re *syntax.Regexp, depth int) (out []state, ok bool) {
	lo, hi := 1, 1
	switch re.Op {
	case syntax.OpQuest:
		lo = 0
	case syntax.OpStar:
		lo, hi = 0, -1
	case syntax.OpPlus:
		hi = -1
	case syntax.OpRepeat:
		lo, hi = re.Min, re.Max
	}
	// Zero times: where it stood. Then each repetition reads on
	// from the last; past the fewest, the pattern may stop or go
	// on, so what is not settled by then is cut.
	qs := open
	if lo == 0 {
		out = append(out, open...)
	}
	for k := 0; k < max(lo, 1) && len(qs) > 0; k++ {
		if qs, ok = tr.extend(qs, re.Sub[0], depth+1); !ok {
			return nil, false
		}
		var settled []state
		settled, qs = tr.settle(qs)
		out = append(out, settled...)
	}
	if hi < 0 || hi > max(lo, 1) {
		for i := range qs {
			qs[i].open = false
		}
	}
	return append(out, qs...), true
}

// extendByte reads byte c from every state in sts.
func (tr *trie) extendByte(sts []state, c byte) ([]state, bool) {
	var out []state
	for _, st := range sts {
		if !st.open || tr.end[st.node] {
			out = append(out, state{st.node, false})
			continue
		}
		n, ok := tr.next[st.node][c]
		if !ok {
			return nil, false
		}
		out = append(out, state{n, true})
	}
	return out, true
}

// maxLen is the longest match of re in bytes, or -1 when there is
// no bound.
func maxLen(re *syntax.Regexp) int {
	n := longest(re)
	if n > 1<<16 {
		return -1
	}
	return n
}

func longest(re *syntax.Regexp) int {
	const inf = 1 << 30
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			m := utf8.RuneLen(r)
			if re.Flags&syntax.FoldCase != 0 { // k matches K and the Kelvin sign
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					m = max(m, utf8.RuneLen(f))
				}
			}
			n += m
		}
		return n
	case syntax.OpCharClass:
		if len(re.Rune) > 0 && re.Rune[len(re.Rune)-1] < 0x80 {
			return 1
		}
		return 4
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 4
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpBeginLine, syntax.OpEndLine:
		return 0
	case syntax.OpCapture, syntax.OpQuest:
		return longest(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return inf
	case syntax.OpRepeat:
		if re.Max < 0 {
			return inf
		}
		return min(inf, re.Max*longest(re.Sub[0]))
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			n = min(inf, n+longest(s))
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, s := range re.Sub {
			n = max(n, longest(s))
		}
		return n
	}
	return inf
}

// startsWithBoundary reports whether every match of re starts with \b.
func startsWithBoundary(re *syntax.Regexp) bool {
	for {
		switch re.Op {
		case syntax.OpWordBoundary:
			return true
		case syntax.OpCapture:
			re = re.Sub[0]
		case syntax.OpConcat:
			if len(re.Sub) == 0 {
				return false
			}
			re = re.Sub[0]
		default:
			return false
		}
	}
}

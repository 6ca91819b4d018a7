package redact

import (
	"slices"
	"sort"
)

// pass is one redaction of one text: the stages in order, each seeing
// the text as the ones before it left it (t).
//
// The anchors are found once, on the input. A rule sees the input's
// anchors where nothing was replaced near them, and looks again only
// next to an edit: there an anchor may be gone, a pre test may decide
// otherwise, and a marker may hold an anchor of its own (a kind name
// such as github_token). So a rule that changes the text costs what it
// changes, not another pass over everything.
type pass struct {
	t text
	n int
	// Per rule: the input's anchors its pre test accepted there (hits),
	// every anchor found near an edit (near; tested when the rule runs,
	// on the text it sees), and anchors inside repls (inRepl).
	hits, near [][]hit
	inRepl     [][]replHit
	// zones are the input ranges looked at for near anchors, sorted and
	// disjoint: around every edit, preAhead and the longest anchor
	// before it and preBack after it, the edit's own bytes included.
	zones [][2]int
	cur   int // the rule at work; near and inRepl only go to later ones
	// replAnchors caches the anchors found in each repl.
	replAnchors map[string][]hit
}

// hit is an anchor of n bytes at p.
type hit struct{ p, n int }

// replHit is an anchor inside the repl of the edit starting at start (if
// that edit still has that repl), off bytes in.
type replHit struct {
	start int
	repl  string
	off   int
	n     int
}

func newPass(s string) *pass {
	return &pass{t: newText(s), hits: make([][]hit, len(rules)), cur: -1}
}

// meets returns the first edit that input bytes [a, b) meet.
func (p *pass) meets(a, b int) (edit, bool) {
	e := p.t.edits
	k := sort.Search(len(e), func(k int) bool { return e[k].end > a })
	if k < len(e) && e[k].start < b {
		return e[k], true
	}
	return edit{}, false
}

// mergeEdits merges two sorted lists of edits that do not overlap.
func mergeEdits(a, b []edit) []edit {
	out := make([]edit, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].start < b[0].start {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// scan is the one pass over the input: it finds every rule's anchors
// (asking each rule's pre test there) and replaces the values of
// sensitive JSON keys, on the text the known values left.
func (p *pass) scan() {
	s := p.t.in
	j := jsonScan{s: s, edits: p.t.edits}
	sc := theScanner()
	an := sc.anchors
	sc.scan(s, 0, len(s), func(i int, a int32) {
		x := &an[a]
		if x.json {
			j.word(i, x.n)
		} else if x.esc {
			j.escape(i)
		}
		for _, r := range x.rules {
			if rules[r].accepts(s, i, x.n) {
				p.hits[r] = append(p.hits[r], hit{i, x.n})
			}
		}
	})
	p.n += j.n
	if len(j.out) > 0 {
		// A value holds the known values in it whole, or none of them.
		var kept []edit
		for _, e := range p.t.edits {
			k := sort.Search(len(j.out), func(k int) bool { return j.out[k].end > e.start })
			if k == len(j.out) || j.out[k].start >= e.end {
				kept = append(kept, e)
			}
		}
		p.t.edits = mergeEdits(kept, j.out)
		p.t.reindex()
	}
	p.around(p.t.edits)
}

// around looks for anchors near new edits, for the rules after the one
// at work.
func (p *pass) around(fresh []edit) {
	if len(fresh) == 0 {
		return
	}
	if p.near == nil {
		p.near, p.inRepl = make([][]hit, len(rules)), make([][]replHit, len(rules))
	}
	sc := theScanner()
	inner := make([][2]int, len(fresh))
	outer := make([][2]int, len(fresh))
	for i, e := range fresh {
		inner[i] = [2]int{e.start, e.end}
		outer[i] = [2]int{max(0, e.start-sc.maxLen-preAhead), min(len(p.t.in), e.end+preBack)}
		if p.replAnchors == nil {
			p.replAnchors = map[string][]hit{}
		}
		occ, ok := p.replAnchors[e.repl]
		if !ok {
			sc.scan(e.repl, 0, len(e.repl), func(i int, a int32) {
				occ = append(occ, hit{i, int(a)})
			})
			p.replAnchors[e.repl] = occ
		}
		for _, o := range occ {
			a := &sc.anchors[o.n]
			for _, r := range a.rules {
				if r > p.cur {
					p.inRepl[r] = append(p.inRepl[r], replHit{e.start, e.repl, o.p, a.n})
				}
			}
		}
	}
	// An edit's own bytes hold no anchor of the text: nothing to look at.
	p.addZones(inner)
	for _, z := range p.addZones(outer) {
		sc.scan(p.t.in, z[0], z[1], func(i int, a int32) {
			x := &sc.anchors[a]
			for _, r := range x.rules {
				if r > p.cur {
					p.near[r] = append(p.near[r], hit{i, x.n})
				}
			}
		})
	}
}

// addZones adds ranges (sorted by start) to the zones and returns the
// parts that were not in them, sorted and disjoint.
func (p *pass) addZones(add [][2]int) (fresh [][2]int) {
	old := p.zones
	out := make([][2]int, 0, len(old)+len(add))
	push := func(z [2]int) {
		if n := len(out); n > 0 && z[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], z[1])
		} else {
			out = append(out, z)
		}
	}
	k := 0
	for _, z := range add {
		for k < len(old) && old[k][0] <= z[0] {
			push(old[k])
			k++
		}
		// What of z no old zone covers: old zones before it are all
		// pushed; the ones starting inside it are still ahead.
		a := z[0]
		if n := len(out); n > 0 {
			a = max(a, out[n-1][1])
		}
		for q := k; a < z[1]; q++ {
			b := z[1]
			if q < len(old) {
				b = min(b, old[q][0])
			}
			if a < b {
				if n := len(fresh); n > 0 && fresh[n-1][1] >= a {
					fresh[n-1][1] = max(fresh[n-1][1], b)
				} else {
					fresh = append(fresh, [2]int{a, b})
				}
			}
			if q >= len(old) || old[q][0] >= z[1] {
				break
			}
			a = max(a, old[q][1])
		}
		push(z)
	}
	for ; k < len(old); k++ {
		push(old[k])
	}
	p.zones = out
	return fresh
}

// inZone reports whether input offset i lies in a zone.
func (p *pass) inZone(i int) bool {
	z := p.zones
	k := sort.Search(len(z), func(k int) bool { return z[k][1] > i })
	return k < len(z) && z[k][0] <= i
}

// rules runs every rule in order.
func (p *pass) rules() {
	for i, ru := range rules {
		if len(p.hits[i]) == 0 && (p.near == nil || len(p.near[i])+len(p.inRepl[i]) == 0) {
			continue
		}
		p.cur = i
		p.rule(ru, p.anchors(i, ru))
	}
}

// anchors are rule i's anchors in the text it sees (v offsets, sorted),
// its pre test passed.
func (p *pass) anchors(i int, ru *rule) []hit {
	t := &p.t
	var out []hit
	for _, h := range p.hits[i] {
		if len(p.zones) == 0 || !p.inZone(h.p) {
			out = append(out, hit{t.vpos(h.p), h.n})
		}
	}
	pre := func(v, n int) bool {
		if ru.pre == nil {
			return true
		}
		a, b := max(0, v-preBack), min(t.vlen, v+n+ru.reach)
		return ru.accepts(t.slice(a, b), v-a, n)
	}
	if p.near == nil {
		return out
	}
	sorted := true
	for _, h := range p.near[i] {
		if !t.overlaps(h.p, h.p+h.n) {
			if v := t.vpos(h.p); pre(v, h.n) {
				out = append(out, hit{v, h.n})
				sorted = false
			}
		}
	}
	for _, h := range p.inRepl[i] {
		k := sort.Search(len(t.edits), func(k int) bool { return t.edits[k].start >= h.start })
		if k < len(t.edits) && t.edits[k].start == h.start && t.edits[k].repl == h.repl {
			if v := t.vs(k) + h.off; pre(v, h.n) {
				out = append(out, hit{v, h.n})
				sorted = false
			}
		}
	}
	if !sorted {
		slices.SortFunc(out, func(a, b hit) int { return a.p - b.p })
	}
	return out
}

// rule runs one rule around its anchors, on the text as the rules before
// it left it, and makes its changes.
func (p *pass) rule(ru *rule, anchors []hit) {
	if len(anchors) == 0 {
		return
	}
	ru.compile()
	var changes []edit
	if ru.at {
		changes = p.matchAt(ru, anchors)
	} else {
		changes, _ = p.matchWindows(ru, anchors, 0)
	}
	p.n += len(changes)
	p.around(p.t.apply(changes))
}

// matchAt tries the pattern of a rule whose matches start with an anchor
// at each anchor in turn, after the previous match: the matches a search
// through the text would find. A try costs about as much as the text it
// is given, so where anchors crowd (more than atMost within a window of
// each other) they are searched as a window instead.
func (p *pass) matchAt(ru *rule, anchors []hit) []edit {
	t := &p.t
	var changes []edit
	next := 0
	for i := 0; i < len(anchors); {
		// The cluster of anchors whose windows meet.
		j, end := i+1, anchors[i].p+anchors[i].n+window
		for j < len(anchors) && anchors[j].p <= end {
			end = max(end, anchors[j].p+anchors[j].n+window)
			j++
		}
		if j-i > atMost {
			var ch []edit
			ch, next = p.matchWindows(ru, anchors[i:j], next)
			changes = append(changes, ch...)
			i = j
			continue
		}
		for _, h := range anchors[i:j] {
			a := h.p
			if a < next {
				continue
			}
			var prev byte // 0: none
			if a > 0 {
				prev = t.at(a - 1)
			}
			if ru.wb && a > 0 && isWordByte(prev) == isWordByte(t.at(a)) {
				continue // no \b before the anchor
			}
			// The byte before the anchor goes along, so \b sees it.
			re, ctx := ru.atCtx, 1
			if a == 0 {
				re, ctx = ru.atRe, 0
			}
			size := ru.maxLen + 1
			if ru.maxLen < 0 {
				size = h.n + window
			}
			hi := min(t.vlen, a+size)
			var w string
			var mt []int
			for {
				w = t.slice(a-ctx, hi)
				mt = re.FindStringSubmatchIndex(w)
				// Wider while a match may go on past the end: it touches
				// it, a token the anchor starts runs past it, or a private
				// key's END line is further on.
				if hi == t.vlen || ru.maxLen >= 0 ||
					!(mt != nil && mt[1] == len(w) ||
						mt == nil && hi-a < 1<<16 && !tokenByte(prev) && tokenRun(w[ctx:]) && tokenByte(t.at(hi)) ||
						mt == nil && ru.kind == "private_key" && hi-a < 1<<20) {
					break
				}
				hi = min(t.vlen, a+2*(hi-a))
			}
			if mt == nil {
				continue
			}
			mt[0] += ctx
			base := a - ctx
			next = base + mt[1]
			if e, ok := ru.change(w, mt); ok {
				changes = append(changes, edit{base + e.start, base + e.end, e.repl})
			}
		}
		i = j
	}
	return changes
}

// atMost is how many anchors within a window of each other matchAt
// tries one by one.
const atMost = 4

func tokenRun(s string) bool {
	for i := 0; i < len(s); i++ {
		if !tokenByte(s[i]) {
			return false
		}
	}
	return true
}

// tokenByte: a byte tokens are made of.
func tokenByte(c byte) bool {
	return isWordByte(c) || c == '-' || c == '.' || c == '+' || c == '/' || c == '='
}

// change is what match mt in w changes, if anything: the secret of a
// generated rule, what a template does not keep, or the whole match.
func (ru *rule) change(w string, mt []int) (edit, bool) {
	if ru.secret {
		a, z, ok := ru.secretSpan(w, mt)
		if ok && ru.keyed != nil {
			ok = ru.keyed(w, a, z)
		}
		return edit{a, z, ru.marker}, ok
	}
	if ru.minValue > 0 && len(mt) >= 4 && mt[1]-mt[3] < ru.minValue ||
		ru.skip != nil && ru.skip.MatchString(w[mt[0]:mt[1]]) ||
		ru.code != nil && len(mt) >= 4 && ru.code(w, mt[3], mt[1]) {
		return edit{}, false
	}
	a, z, repl := mt[0], mt[1], ru.marker
	if ru.repl != "" {
		a, repl = mt[3], Marker
		if ru.tail {
			z = mt[4]
		}
	}
	if a >= z || w[a:z] == repl {
		return edit{}, false
	}
	return edit{a, z, repl}, true
}

// matchWindows searches the pattern in the windows around the anchors,
// from v offset last on (where the previous match ended), and returns
// the changes and where the last match ended.
func (p *pass) matchWindows(ru *rule, anchors []hit, last int) ([]edit, int) {
	t := &p.t
	spans := make([][2]int, 0, len(anchors))
	for _, h := range anchors {
		sp := [2]int{max(0, h.p-ru.back), min(t.vlen, h.p+h.n+window)}
		if n := len(spans); n > 0 && sp[0] <= spans[n-1][1] {
			spans[n-1][1] = max(spans[n-1][1], sp[1])
		} else {
			spans = append(spans, sp)
		}
	}
	var changes []edit
	ai := 0
	for _, sp := range spans {
		lo, hi := max(sp[0], last), sp[1]
		if lo >= hi {
			continue // a match widened past this window covered it
		}
		// Start on a word boundary, so \b and leading classes see what they
		// would see in the whole text.
		if lo > last {
			b := max(last, sp[0]-64)
			before := t.slice(b, lo)
			for lo > b && isWordByte(before[lo-1-b]) {
				lo--
			}
		}
		// This window's anchors.
		for ai < len(anchors) && anchors[ai].p < lo {
			ai++
		}
		az := ai
		for az < len(anchors) && anchors[az].p < hi {
			az++
		}
		w := t.slice(lo, hi)
		matches := findAll(ru, w, anchors[ai:az], lo)
		for hi < t.vlen && widen(ru, matches, hi-lo) {
			hi = min(t.vlen, lo+2*(hi-lo))
			w = t.slice(lo, hi)
			for az < len(anchors) && anchors[az].p < hi {
				az++
			}
			matches = findAll(ru, w, anchors[ai:az], lo)
		}
		for _, mt := range matches {
			e, ok := ru.change(w, mt)
			if !ok || ru.secret && lo+e.start < last {
				continue
			}
			changes = append(changes, edit{lo + e.start, lo + e.end, e.repl})
			if ru.secret {
				last = lo + e.end
			} else {
				last = lo + mt[1]
			}
		}
	}
	return changes, last
}

// findAll is the rule's matches in w (which starts at v offset lo). When
// every match holds an anchor, the search stops once none is left
// ahead, which spares reading the rest of the window: it asks for one
// match, then two, four..., so a window of many matches costs at most
// twice one search.
func findAll(ru *rule, w string, anchors []hit, lo int) [][]int {
	if !ru.holds {
		return ru.re.FindAllStringSubmatchIndex(w, -1)
	}
	for k := 1; ; k *= 2 {
		ms := ru.re.FindAllStringSubmatchIndex(w, k)
		if len(ms) < k {
			return ms
		}
		end := lo + ms[k-1][1]
		if len(anchors) == 0 || anchors[len(anchors)-1].p < end {
			return ms
		}
	}
}

// noUnnamed turns the last stage off: tests measure what it adds.
var noUnnamed bool

// unnamed is the last stage: credentials no rule names, judged by their
// shape on the text every rule left (see unnamed.go).
func (p *pass) unnamed() {
	if noUnnamed {
		return
	}
	changes := unnamed(p.t.String())
	p.n += len(changes)
	p.t.apply(changes)
}

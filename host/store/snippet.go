package store

import (
	"math"
	"sort"
	"strings"
	"unicode/utf8"
)

// snipTerm is a term a snippet looks for, and what finding it is worth.
type snipTerm struct {
	text   string
	weight float64
	// field: a field's name, found first where it names a field (a
	// key, a label, a heading), its value after it.
	field bool
	// stem and related are found instead when text is not (planTerm's).
	stem    string
	related []string
}

// maxSnipHits bounds how many places of each term a snippet considers,
// so a word repeated all over a 1 MiB part costs no more than a few.
const maxSnipHits = 256

// Snippet returns about width bytes of body where most of terms meet
// (case-insensitively), on one line, JSON string escapes undone.
func Snippet(body string, terms []string, width int) string {
	s, _, _ := snippetOf(body, plainTerms(terms), width, false, false)
	return s
}

func plainTerms(terms []string) []snipTerm {
	out := make([]snipTerm, len(terms))
	for i, t := range terms {
		out[i] = snipTerm{text: t, weight: 1}
	}
	return out
}

// snippetTerms are what a hit's snippet is centred on: the query's
// content terms, and the field names its field words point to, worth
// together as much as all the terms (the answer to "who owns X" is next
// to X's assignee field, not next to X: a field named outweighs every
// term).
//
// A field asked of one part of the query ("who owns X and which release
// did Y first appear in") is looked for first in a hit holding a term of
// that part: missing are the terms the hit lacks.
func (p plan) snippetTerms(missing []string) []snipTerm {
	out := make([]snipTerm, 0, len(p.terms))
	lacks := map[string]bool{}
	for _, m := range missing {
		lacks[m] = true
	}
	asked := map[int]bool{} // clauses with a term the hit holds, or with none
	terms := map[int]bool{}
	for _, t := range p.terms {
		out = append(out, snipTerm{text: t.raw, weight: 1, stem: t.stem, related: t.related})
		terms[t.clause] = true
		if !lacks[t.raw] {
			asked[t.clause] = true
		}
	}
	if len(out) == 0 {
		return out
	}
	n := float64(len(p.terms))
	for _, h := range p.hints {
		// A field of another part weighs less, but is still looked for:
		// "the branch of the fix for <sentry id>" is in the pull request
		// that names the ticket.
		weight := 3 * n
		if terms[h.clause] && !asked[h.clause] {
			weight = n
		}
		for _, f := range h.fields {
			out = append(out, snipTerm{text: f, weight: weight, field: true})
		}
		// A record asked for by kind and id: its title, worth less.
		for _, f := range recordFields[h.word] {
			out = append(out, snipTerm{text: f, weight: n / 2, field: true})
		}
	}
	return out
}

// snippetOf is Snippet, for body a piece of a longer text (more before
// it, more after it: an ellipsis marks them). It also returns where in
// body the snippet's first match is, and what the terms found are worth
// (0: none was found).
func snippetOf(body string, terms []snipTerm, width int, before, after bool) (string, int, float64) {
	text, back := unescapeJSON(body)
	from, to, fieldAt, worth := bestWindow(asciiLower(text), terms, width*3/4, true)
	at := 0
	if worth > 0 {
		at = back(from)
	}
	start := 0
	switch {
	case worth == 0:
	case fieldAt >= 0:
		// A field's value follows its name.
		start = max(fieldAt-width/5, 0)
	case to-from > width*3/4:
		start = max(from-width/8, 0)
	default:
		// The span the matches cover, centred.
		start = max(from-(width-(to-from))/2, 0)
	}
	start = max(min(start, len(text)-width), 0) // no room wasted past the end
	end := min(start+width, len(text))
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	s := strings.Join(strings.Fields(text[start:end]), " ")
	if start > 0 || before {
		s = "…" + s
	}
	if end < len(text) || after {
		s += "…"
	}
	return s, at, worth
}

type snipHit struct {
	at, end, term int
}

// bestWindow finds, in lower, the span of at most span bytes where the
// terms found are worth most (each term counted once, a term repeated
// in the text worth less than one found once), and returns it and its
// worth.
//
// With damp, a term found many times is worth less (for a snippet, a
// rarer term in the text says more); without, each term is worth its
// weight.
// It also returns where the window's first field name is (-1: none).
func bestWindow(lower string, terms []snipTerm, span int, damp bool) (int, int, int, float64) {
	var hits []snipHit
	worth := make([]float64, len(terms))
	for i, t := range terms {
		found, share := termHits(lower, t, i)
		hits = append(hits, found...)
		if n := len(found); n > 0 {
			worth[i] = t.weight * share
			if damp {
				worth[i] /= 1 + math.Log(float64(n))
			}
		}
	}
	if len(hits) == 0 {
		return 0, 0, -1, 0
	}
	sort.Slice(hits, func(a, b int) bool { return hits[a].at < hits[b].at })
	count := make([]int, len(terms))
	var sum, bestSum float64
	bestL, bestR := 0, 0
	r := 0
	for l := range hits {
		for r < len(hits) && hits[r].end-hits[l].at <= span {
			if count[hits[r].term] == 0 {
				sum += worth[hits[r].term]
			}
			count[hits[r].term]++
			r++
		}
		if r == l { // one hit longer than the span
			r = l + 1
			count[hits[l].term]++
			sum += worth[hits[l].term]
		}
		if sum > bestSum+1e-9 {
			bestSum, bestL, bestR = sum, l, r
		}
		count[hits[l].term]--
		if count[hits[l].term] == 0 {
			sum -= worth[hits[l].term]
		}
	}
	end, fieldAt := hits[bestL].end, -1
	for _, h := range hits[bestL:bestR] {
		end = max(end, h.end)
		if fieldAt < 0 && terms[h.term].field {
			fieldAt = h.at
		}
	}
	return hits[bestL].at, end, fieldAt, bestSum
}

// termHits returns where term i is in lower, and what finding it there
// is worth against finding it as written: its dictionary form counts
// as much, a related word relatedShare.
func termHits(lower string, t snipTerm, i int) ([]snipHit, float64) {
	needle := asciiLower(t.text)
	var found []int
	if t.field {
		// Only where it names a field: "release" in prose is no answer.
		found = fieldOccurrences(lower, needle)
	} else {
		found = occurrences(lower, needle, true)
	}
	if len(found) == 0 && !t.field {
		found = occurrences(lower, needle, false) // part of a longer word
	}
	var hits []snipHit
	for _, j := range found {
		hits = append(hits, snipHit{j, j + len(needle), i})
	}
	if f := strings.Fields(needle); len(hits) == 0 && len(f) > 1 {
		// A phrase across a line break, or split by escapes: its first word.
		if j := strings.Index(lower, f[0]); j >= 0 {
			hits = append(hits, snipHit{j, j + len(f[0]), i})
		}
	}
	if len(hits) > 0 || t.field {
		return hits, 1
	}
	share := 1.0
	for k, alt := range append([]string{t.stem}, t.related...) {
		if alt == "" {
			continue
		}
		if k > 0 {
			share = relatedShare
		}
		for _, j := range wordStarts(lower, alt) {
			hits = append(hits, snipHit{j, wordEnd(lower, j+len(alt)), i})
		}
		if len(hits) > 0 {
			return hits, share
		}
	}
	return nil, 0
}

// wordStarts returns where a word beginning with prefix is in lower (an
// inflection of it: "lock" in "locks", "locked").
func wordStarts(lower, prefix string) []int {
	var out []int
	for _, at := range occurrences(lower, prefix, false) {
		if at == 0 || !wordByte(lower[at-1]) {
			out = append(out, at)
		}
	}
	return out
}

// wordEnd returns where the word running through i ends.
func wordEnd(lower string, i int) int {
	for i < len(lower) && wordByte(lower[i]) && lower[i] < 0x80 {
		i++
	}
	return i
}

// occurrences returns where needle is in lower (at most maxSnipHits
// places); with whole, only where it is not part of a longer word or
// identifier (NTF-6977 is not in NTF-69778).
func occurrences(lower, needle string, whole bool) []int {
	var out []int
	for off := 0; len(out) < maxSnipHits && needle != ""; {
		j := strings.Index(lower[off:], needle)
		if j < 0 {
			break
		}
		at := off + j
		off = at + len(needle)
		if whole && (at > 0 && wordByte(lower[at-1]) && wordByte(needle[0]) ||
			off < len(lower) && wordByte(lower[off]) && wordByte(needle[len(needle)-1])) {
			continue
		}
		out = append(out, at)
	}
	return out
}

// wordByte reports an ASCII letter or digit, or a byte of a multi-byte
// character (a letter, most likely).
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// fieldOccurrences returns where name is in lower as a field's name: a
// JSON key or a label ("assignee": , **First release**: , status=), or
// a heading (## Mitigate).
func fieldOccurrences(lower, name string) []int {
	var out []int
	for _, at := range occurrences(lower, name, true) {
		rest := lower[at+len(name):]
		rest = strings.TrimLeft(rest[:min(len(rest), 4)], "\"*_ ")
		head := strings.TrimRight(lower[max(at-4, 0):at], " ")
		if strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "=") || strings.HasSuffix(head, "#") {
			out = append(out, at)
		}
	}
	return out
}

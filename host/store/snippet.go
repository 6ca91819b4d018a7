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
		out[i] = snipTerm{t, 1}
	}
	return out
}

// snippetTerms are what a hit's snippet is centred on: the query's
// content terms, and the field names its field words point to, worth
// together as much as all the terms (the answer to "who owns X" is next
// to X's assignee field, not next to X).
func (p plan) snippetTerms() []snipTerm {
	out := make([]snipTerm, 0, len(p.terms))
	for _, t := range p.terms {
		out = append(out, snipTerm{t.raw, 1})
	}
	if len(out) == 0 {
		return out
	}
	for _, f := range p.fieldWords() {
		out = append(out, snipTerm{f, float64(len(p.terms))})
	}
	return out
}

// snippetOf is Snippet, for body a piece of a longer text (more before
// it, more after it: an ellipsis marks them). It also returns where in
// body the snippet's first match is, and what the terms found are worth
// (0: none was found).
func snippetOf(body string, terms []snipTerm, width int, before, after bool) (string, int, float64) {
	text, back := unescapeJSON(body)
	from, to, worth := bestWindow(asciiLower(text), terms, width*3/4)
	at := 0
	if worth > 0 {
		at = back(from)
	}
	start := 0
	if worth > 0 {
		// The match a quarter in, or the span it covers centred.
		start = max(from-max((width-(to-from))/2, width/4), 0)
		if to-from > width*3/4 {
			start = max(from-width/8, 0)
		}
	}
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
func bestWindow(lower string, terms []snipTerm, span int) (int, int, float64) {
	var hits []snipHit
	worth := make([]float64, len(terms))
	for i, t := range terms {
		needle := asciiLower(t.text)
		n := 0
		for off := 0; n < maxSnipHits && needle != ""; n++ {
			j := strings.Index(lower[off:], needle)
			if j < 0 {
				break
			}
			hits = append(hits, snipHit{off + j, off + j + len(needle), i})
			off += j + len(needle)
		}
		if f := strings.Fields(needle); n == 0 && len(f) > 1 {
			// A phrase across a line break, or split by escapes: its first word.
			if j := strings.Index(lower, f[0]); j >= 0 {
				hits, n = append(hits, snipHit{j, j + len(f[0]), i}), 1
			}
		}
		if n > 0 {
			worth[i] = t.weight / (1 + math.Log(float64(n)))
		}
	}
	if len(hits) == 0 {
		return 0, 0, 0
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
	end := hits[bestL].end
	for _, h := range hits[bestL:bestR] {
		end = max(end, h.end)
	}
	return hits[bestL].at, end, bestSum
}

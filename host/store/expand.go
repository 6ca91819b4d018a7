package store

import (
	"os"
	"slices"
	"strings"

	"github.com/ctxhook/ctxhook/host/store/lexicon"
)

// relatedShare is what holding a term only through a related word
// (lexicon: "inventory" for "stock") is worth, against holding the
// term as typed: a synonym may be of another sense.
const relatedShare = 0.4

// expandMode says what a query's plain words bring in besides
// themselves: by default their stems, for snippets and closeness
// ("locking" is found in "row locks", as the stemmed index already
// matched it); with "wordnet" their dictionary forms and WordNet's
// related words (package lexicon), looked up in the index, worth
// relatedShare; with "off" nothing. The CTXHOOK_SEARCH_EXPAND environment variable sets
// it. Related words are not the default: on the frozen benchmark they
// found more paraphrases in the first ten but fewer in the first five
// (docs/search.md).
func expandMode() string {
	return os.Getenv("CTXHOOK_SEARCH_EXPAND")
}

// expand gives each plain word of p (letters only: not an identifier,
// a number, a path or a phrase) its stem or dictionary form and, by
// mode, the words related to it.
func (p *plan) expand() {
	mode := expandMode()
	if mode == "off" {
		return
	}
	have := map[string]bool{}
	for _, t := range p.terms {
		have[asciiLower(t.raw)] = true
	}
	for i, t := range p.terms {
		w := asciiLower(t.raw)
		if !plainWord(w) {
			continue
		}
		if mode != "wordnet" {
			// No table to load: a search from the CLI is one process.
			if st := stemOf(w); st != w {
				p.terms[i].stem = st
			}
			continue
		}
		for _, f := range lexicon.Forms(w) {
			if f != w && p.terms[i].stem == "" {
				p.terms[i].stem = f
			}
			for _, r := range lexicon.Related(f) {
				if !have[r] && !stopwords[r] && !slices.Contains(p.terms[i].related, r) {
					p.terms[i].related = append(p.terms[i].related, r)
				}
			}
		}
	}
}

// stemOf returns w without an English inflection, as a prefix of its
// other forms ("locking", "locked", "locks": "lock"; "queries": "quer";
// "stopped": "stop"), or w. It only finds the word in a snippet: the
// index stems on its own.
func stemOf(w string) string {
	for _, suf := range []string{"ies", "es", "ing", "ed", "s"} {
		st := strings.TrimSuffix(w, suf)
		if st == w || len(st) < 3 || suf == "s" && strings.HasSuffix(w, "ss") {
			continue
		}
		if n := len(st); st[n-1] == st[n-2] && !strings.ContainsRune("aeiouls", rune(st[n-1])) {
			st = st[:n-1] // a doubled consonant: stopped, planning
		}
		return st
	}
	return w
}

// plainWord reports a lowercase word of letters, three or more.
func plainWord(w string) bool {
	if len(w) < 3 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// relatedMatches returns the events holding one of t's related words
// (the best document of each, as termMatches), skipping those in have.
func (s *Store) relatedMatches(c corpus, t planTerm, have []cand, filtered, withParts bool, o SearchOptions) ([]cand, error) {
	if len(t.related) == 0 {
		return nil, nil
	}
	or := make([]string, len(t.related))
	for i, r := range t.related {
		or[i] = quote(r)
	}
	match := strings.Join(or, " OR ")
	cands, err := s.matches(c, c.words, match, false, c.weights, filtered, o)
	if err != nil {
		return nil, err
	}
	if withParts {
		pc, err := s.matches(c, c.partWords, match, true, "bm25("+c.partWords+")", filtered, o)
		if err != nil {
			return nil, err
		}
		cands = best(cands, pc)
	}
	seen := make(map[int64]bool, len(have))
	for _, cd := range have {
		seen[cd.id] = true
	}
	out := cands[:0]
	for _, cd := range cands {
		if !seen[cd.id] {
			cd.score *= relatedShare
			out = append(out, cd)
		}
	}
	return out, nil
}

// alternatives are the words a snippet may show for t besides t itself.
func (t planTerm) alternatives() []string {
	if t.stem == "" {
		return t.related
	}
	return append([]string{t.stem}, t.related...)
}

// shares are what holding a term is worth for the events that hold it
// other than as a word: as a substring (trigramShare), or through a
// related word (relatedShare, less for a common one).
type shares struct {
	sub     map[int64]bool
	related map[int64]float64
}

func (s shares) of(id int64) float64 {
	if v, ok := s.related[id]; ok {
		return v
	}
	if s.sub[id] {
		return trigramShare
	}
	return 1
}

// termCands returns the events holding t, as a word or a substring
// (termMatches) or through a related word, and what each holding is
// worth.
func (s *Store) termCands(c corpus, t planTerm, docs int, filtered, withParts bool, o SearchOptions) ([]cand, shares, error) {
	cands, sub, err := s.termMatches(c, t.raw, filtered, withParts, o)
	if err != nil {
		return nil, shares{}, err
	}
	sh := shares{sub: sub, related: map[int64]float64{}}
	rel, err := s.relatedMatches(c, t, cands, filtered, withParts, o)
	if err != nil || len(rel) == 0 {
		return cands, sh, err
	}
	// A related word as common as the term, or more, says less.
	worth := relatedShare * min(1, idf(docs, len(rel))/idf(docs, len(cands)))
	for _, cd := range rel {
		sh.related[cd.id] = worth
	}
	return append(cands, rel...), sh, nil
}

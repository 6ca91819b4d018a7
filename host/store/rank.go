package store

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strings"
	"unicode/utf8"
)

// cand is a row that matched one term in one index: its id (an event's,
// for a part), its score (higher is better) and, for a part, the part's id.
type cand struct {
	id    int64
	score float64
	part  int64
}

// ranking is rank's answer.
type ranking struct {
	ids    []int64 // best first, at most the limit
	scores map[int64]float64
	total  int             // matches, up to MaxTotal
	parts  map[int64]int64 // an event's best matching part, when one matched
	plan   plan
	// unmatched are the content terms no event holds.
	unmatched []string
	// missing are, per event, the bits of the plan's terms it lacks.
	held map[int64]uint64
}

// missing returns the content terms event id does not hold.
func (r ranking) missing(id int64) []string {
	var out []string
	for i, t := range r.plan.terms {
		if r.held[id]&(1<<uint(i)) == 0 {
			out = append(out, t.raw)
		}
	}
	return out
}

// Weights of the fused relevance (see rank). Coverage, the share of the
// query's rarity-weighted terms an event holds, is 1 at most; BM25 adds
// up to bm25Share; hints add a little, enough to order events that hold
// the same terms, never enough to lift one that holds fewer rare ones.
const (
	bm25Share   = 0.3
	recordBonus = 0.12
	fieldBonus  = 0.08
	// proximityShare is what the query's terms found close together (in
	// one snippet's span) add: a list naming every term in different
	// rows holds them all, the record they describe holds them together.
	proximityShare = 0.5
	proximityPool  = 30
	proximitySpan  = 240
	// togetherBonus is for terms found in one document, not spread over
	// an event's parts.
	togetherBonus = 0.1
	// maxRelevance is the most an event can score: Score's scale.
	maxRelevance = 1 + proximityShare + bm25Share + recordBonus + fieldBonus + togetherBonus
	// hintPool is how many of the best events hints re-order.
	hintPool = 50
	// trigramScore is what a substring match scores, against 1 for the
	// best BM25 match of the term.
	trigramScore = 0.3
	// trigramShare is what holding a term as a substring only is worth,
	// against holding it as a word.
	trigramShare = 0.7
)

// rank finds rows of c matching q and returns the best o.Limit ids,
// their scores, and the count of matches up to MaxTotal.
//
// No term is required. Each content term (planOf: question and filler
// words are left out, record and field words are hints) is looked up on
// its own, in the word index and as a substring in the trigram index
// (worth less); an event scores, per term, by its best
// document (its own, or one of its parts: a body in parts competes as
// one event through its best part). Events are ordered by how much of
// the query they hold, each term weighted by its rarity, then by the sum
// of their terms' BM25 scores (columns weighted: the call's arguments,
// which name the record fetched, count most), then by how close
// together the terms are, then by the hints.
func (s *Store) rank(c corpus, q Query, o SearchOptions) (ranking, error) {
	r := ranking{scores: map[int64]float64{}, parts: map[int64]int64{}, held: map[int64]uint64{}}
	if err := q.Check(); err != nil {
		return r, err
	}
	r.plan = planOf(q)
	filtered := o.Session != "" || o.Server != "" || o.Category != "" || o.SinceMS != 0 || o.UntilMS != 0
	withParts := c.partWords != "" && s.hasParts()
	if withParts {
		n, err := s.count(`SELECT EXISTS(SELECT 1 FROM event_parts_fts_docsize)`, nil)
		if err != nil {
			return r, fmt.Errorf("store: search: %w", err)
		}
		withParts = n > 0
	}
	docs, err := s.count(`SELECT count(*) FROM `+c.table, nil)
	if err != nil {
		return r, fmt.Errorf("store: search: %w", err)
	}
	termWeights, weights, err := s.scoreTerms(c, &r, docs, filtered, withParts, o)
	if err != nil {
		return r, fmt.Errorf("store: search: %w", err)
	}
	r.total = min(len(r.scores), MaxTotal)
	ids := r.order()
	if len(r.plan.terms) > 1 {
		if err := s.applyProximity(c, r, ids[:min(len(ids), proximityPool)], termWeights, weights); err != nil {
			return r, fmt.Errorf("store: search: %w", err)
		}
		ids = r.order()
	}
	if len(r.plan.hints) > 0 {
		if err := s.applyHints(c, r.plan, ids[:min(len(ids), hintPool)], r.scores); err != nil {
			return r, fmt.Errorf("store: search: %w", err)
		}
		ids = r.order()
	}
	for id, v := range r.scores {
		r.scores[id] = MaxScore * min(1, v/maxRelevance)
	}
	r.ids = ids[:min(len(ids), o.Limit)]
	return r, nil
}

// order returns the scored ids best first, newer first on ties.
func (r ranking) order() []int64 {
	ids := make([]int64, 0, len(r.scores))
	for id := range r.scores {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if r.scores[ids[i]] != r.scores[ids[j]] {
			return r.scores[ids[i]] > r.scores[ids[j]]
		}
		return ids[i] > ids[j]
	})
	return ids
}

// idf is a term's rarity among docs documents, n of which hold it
// (BM25's, kept positive for a term in most of them).
func idf(docs, n int) float64 {
	return math.Log(1 + (float64(docs)-float64(n)+0.5)/(float64(n)+0.5))
}

// termMatches returns the events holding term, one each, its best
// document's score and what holding it is worth (1, or trigramShare for
// a substring match). The word index scores with BM25; the trigram
// index finds a term of three characters or more inside longer words
// (part of an identifier, a path, a camelCase name), unless the word
// index already found more than the window holds. A whole-word match
// always beats a substring one: INV-903 is INV-903 before it is part
// of INV-9030.
func (s *Store) termMatches(c corpus, term string, filtered, withParts bool, o SearchOptions) ([]cand, map[int64]bool, error) {
	match := quote(term)
	cands, err := s.matches(c, c.words, match, false, c.weights, filtered, o)
	if err != nil {
		return nil, nil, err
	}
	if withParts {
		pc, err := s.matches(c, c.partWords, match, true, "bm25("+c.partWords+")", filtered, o)
		if err != nil {
			return nil, nil, err
		}
		cands = best(cands, pc)
	}
	if len(cands) >= rankWindow || utf8.RuneCountInString(term) < 3 {
		return cands, nil, nil
	}
	tri, err := s.matches(c, c.trigrams, match, false, "", filtered, o)
	if err != nil {
		return nil, nil, err
	}
	if withParts {
		pc, err := s.matches(c, c.partTrigrams, match, true, "", filtered, o)
		if err != nil {
			return nil, nil, err
		}
		tri = best(tri, pc)
	}
	have := make(map[int64]bool, len(cands))
	for _, cd := range cands {
		have[cd.id] = true
	}
	sub := map[int64]bool{}
	for _, cd := range tri {
		if !have[cd.id] {
			sub[cd.id] = true
			cands = append(cands, cand{cd.id, trigramScore, cd.part})
		}
	}
	return cands, sub, nil
}

// best merges an event's matches in its own document and in its parts:
// one per event, its best score, and the part when a part scored best.
func best(a, b []cand) []cand {
	at := make(map[int64]int, len(a))
	for i, c := range a {
		at[c.id] = i
	}
	for _, c := range b {
		i, ok := at[c.id]
		switch {
		case !ok:
			at[c.id] = len(a)
			a = append(a, c)
		case c.score > a[i].score:
			a[i].score, a[i].part = c.score, c.part
		case a[i].part == 0:
			a[i].part = c.part
		}
	}
	return a
}

// matches returns the newest rankWindow matches of one index of c (the
// index of its parts, with parts), scored with score (an SQL expression,
// "" for none) negated so that higher is better, one per row of c: the
// best of an event's parts.
func (s *Store) matches(c corpus, table, match string, parts bool, score string, filtered bool, o SearchOptions) ([]cand, error) {
	if score == "" {
		score = "0"
	}
	var sql string
	switch {
	case parts:
		sql = `SELECT p.event_id, -` + score + `, f.rowid FROM ` + table + ` f JOIN event_parts p ON p.id = f.rowid`
		if filtered {
			sql += ` JOIN ` + c.table + ` e ON e.id = p.event_id WHERE ` + table + ` MATCH ?1 AND ` + c.filter
		} else {
			sql += ` WHERE ` + table + ` MATCH ?1`
		}
		sql += ` ORDER BY f.rowid DESC LIMIT ?7`
	case filtered:
		sql = `SELECT f.rowid, -` + score + `, 0 FROM ` + table + ` f JOIN ` + c.table + ` e ON e.id = f.rowid
				WHERE ` + table + ` MATCH ?1 AND ` + c.filter + ` ORDER BY f.rowid DESC LIMIT ?7`
	default:
		sql = `SELECT rowid, -` + score + `, 0 FROM ` + table + ` WHERE ` + table + ` MATCH ?1 ORDER BY rowid DESC LIMIT ?7`
	}
	st, _, err := s.conn.Prepare(sql)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	bindAll(st, match, o.Session, o.Server, o.Category, o.SinceMS, o.UntilMS, int64(rankWindow))
	var cands []cand
	for st.Step() {
		cands = append(cands, cand{st.ColumnInt64(0), st.ColumnFloat(1), st.ColumnInt64(2)})
	}
	if err := st.Err(); err != nil {
		return nil, err
	}
	// BM25's scale is its table's (a part's terms are rarer among parts
	// than among events): scores are each table's share of its best.
	var top float64
	for _, cd := range cands {
		top = max(top, cd.score)
	}
	for i := range cands {
		if top > 0 {
			cands[i].score /= top
		} else {
			cands[i].score = 1
		}
	}
	if !parts {
		return cands, nil
	}
	return best(nil, cands), nil
}

// applyHints adds to the scores of ids (the best events) what the
// query's hints say of them: a record word whose tool or server is the
// event's, a field word whose field names the event holds.
func (s *Store) applyHints(c corpus, p plan, ids []int64, scores map[int64]float64) error {
	if len(ids) == 0 {
		return nil
	}
	list, _ := json.Marshal(ids)
	var tools []string
	for _, h := range p.hints {
		tools = append(tools, h.tools...)
	}
	if len(tools) > 0 && c.table == eventsCorpus.table {
		st, _, err := s.conn.Prepare(`SELECT id, lower(tool || ' ' || server) FROM events WHERE id IN (SELECT value FROM json_each(?1))`)
		if err != nil {
			return err
		}
		bindAll(st, string(list))
		for st.Step() {
			name := st.ColumnText(1)
			for _, t := range tools {
				if strings.Contains(name, t) {
					scores[st.ColumnInt64(0)] += recordBonus
					break
				}
			}
		}
		err = st.Err()
		st.Close()
		if err != nil {
			return err
		}
	}
	fields := p.fieldWords()
	if len(fields) == 0 {
		return nil
	}
	or := make([]string, len(fields))
	for i, f := range fields {
		or[i] = quote(f)
	}
	st, _, err := s.conn.Prepare(`SELECT rowid FROM ` + c.words + ` WHERE ` + c.words + ` MATCH ?1 AND rowid IN (SELECT value FROM json_each(?2))`)
	if err != nil {
		return err
	}
	defer st.Close()
	bindAll(st, strings.Join(or, " OR "), string(list))
	for st.Step() {
		scores[st.ColumnInt64(0)] += fieldBonus
	}
	return st.Err()
}

// applyProximity adds to the scores of ids (the best events) the share
// of the query's weighted terms found within proximitySpan bytes of one
// another in the event's own text (its head, for a body in parts, and
// the part that matched best).
func (s *Store) applyProximity(c corpus, r ranking, ids []int64, w []float64, total float64) error {
	terms := make([]snipTerm, len(r.plan.terms))
	for i, t := range r.plan.terms {
		terms[i] = snipTerm{text: t.raw, weight: w[i], stem: t.stem, related: t.related}
	}
	for _, id := range ids {
		var texts []string
		if c.table == chunksCorpus.table {
			ch, err := s.ChunkByID(id)
			if err != nil {
				return err
			}
			texts = append(texts, ch.Text)
		} else {
			e, err := s.Event(id)
			if err != nil {
				return err
			}
			texts = append(texts, e.Args+"\n"+e.Body())
			if part := r.parts[id]; part != 0 {
				doc, _, err := s.partDoc(part)
				if err != nil {
					return err
				}
				texts = append(texts, doc)
			}
		}
		var worth float64
		for _, t := range texts {
			u, _ := unescapeJSON(t)
			_, _, _, v := bestWindow(asciiLower(u), terms, proximitySpan, false)
			worth = max(worth, v)
		}
		r.scores[id] += proximityShare * worth / total
	}
	return nil
}

// scoreTerms looks up each term of r's plan, and scores every event
// holding any: the share of the terms' weights (their rarity among docs)
// it holds, its terms' BM25, and whether they are in one document. It
// returns each term's weight and their sum.
func (s *Store) scoreTerms(c corpus, r *ranking, docs int, filtered, withParts bool, o SearchOptions) ([]float64, float64, error) {
	held := map[int64]float64{} // rarity-weighted terms held
	bm := map[int64]float64{}   // summed BM25
	var weights float64
	var termWeights []float64
	docOf := map[int64]int64{} // the document (0: the event's own, else a part) its first term is in
	split := map[int64]bool{}  // terms in more than one document
	for i := 0; i < len(r.plan.terms); i++ {
		t := r.plan.terms[i]
		cands, share, err := s.termCands(c, t, docs, filtered, withParts, o)
		if err != nil {
			return nil, 0, err
		}
		literal := len(cands) - len(share.related)
		if literal == 0 {
			// A compound no record spells so (inventory-sync#9991, the
			// repository and the number in two fields): its words.
			r.plan.split(i)
		}
		w := idf(docs, literal)
		weights += w
		termWeights = append(termWeights, w)
		if len(cands) == 0 {
			r.unmatched = append(r.unmatched, t.raw)
		}
		for _, cd := range cands {
			if d, ok := docOf[cd.id]; !ok {
				docOf[cd.id] = cd.part
			} else if d != cd.part {
				split[cd.id] = true
			}
			r.held[cd.id] |= 1 << uint(i)
			held[cd.id] += w * share.of(cd.id)
			bm[cd.id] += w * cd.score
			if _, ok := r.parts[cd.id]; !ok && cd.part != 0 {
				r.parts[cd.id] = cd.part
			}
		}
	}
	var maxBM float64
	for _, v := range bm {
		maxBM = max(maxBM, v)
	}
	for id, h := range held {
		r.scores[id] = h / weights
		if maxBM > 0 {
			r.scores[id] += bm25Share * bm[id] / maxBM
		}
		if !split[id] && bits.OnesCount64(r.held[id]) > 1 {
			r.scores[id] += togetherBonus
		}
	}
	return termWeights, weights, nil
}

package pgstore

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxhook/ctxhook/host/store"
)

// rankWindow bounds how many matching pieces each term ranks (the
// newest), as the SQLite store ranks at most the newest 1000 matches
// per index: a common word would otherwise score most of the store.
const rankWindow = 1000

// searchSQL finds, for each term, the newest pieces that hold it as a
// word (the english configuration: stemmed, as FTS5's porter) or as a
// substring (pg_trgm's index serves the ILIKE), and fuses the two per
// event: an event ranks by how many terms it holds, then by how well
// (ts_rank_cd), then the newest first. Row-level security has already
// removed what the user may not read; the filters only narrow.
var searchSQL = `
WITH t AS (
	SELECT i, term, pat, plainto_tsquery('english', term) AS q
	FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(term, pat, i)
), m AS (
	SELECT t.i, d.event_id, d.seq, ts_rank_cd(d.words, t.q) AS r
	FROM t CROSS JOIN LATERAL (
		SELECT d.event_id, d.seq, d.words FROM ctxhook_docs d
		WHERE d.words @@ t.q OR (t.pat <> '' AND d.doc ILIKE t.pat)
		ORDER BY d.event_id DESC LIMIT ` + strconv.Itoa(rankWindow) + `
	) d
), per AS (
	SELECT event_id, array_agg(DISTINCT i) AS held, sum(r) AS r, (array_agg(seq ORDER BY r DESC))[1] AS best
	FROM m GROUP BY event_id
)
SELECT e.id, per.held, per.r, per.best, count(*) OVER () AS total
FROM per JOIN ctxhook_events e ON e.id = per.event_id
WHERE ($3 = '' OR e.session = $3) AND ($4 = '' OR e.server = $4) AND ($5 = '' OR e.category = $5)
	AND ($6 = 0 OR e.ts_ms >= $6) AND ($7 = 0 OR e.ts_ms < $7)
ORDER BY cardinality(per.held) DESC, per.r DESC, e.id DESC
LIMIT $8`

// likePattern is a term as an ILIKE pattern that matches it anywhere,
// its wildcards escaped; "" for a term too short for the trigram index
// (as the SQLite store's trigram index, which needs three characters).
func likePattern(term string) string {
	if len([]rune(term)) < 3 {
		return ""
	}
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(term) + "%"
}

type match struct {
	id    int64
	held  []int64
	rank  float64
	best  int32
	total int64
}

// SearchResult finds the events matching q that the user may read, the
// ones holding the most terms first, with snippets.
func (s *Store) SearchResult(q store.Query, o store.SearchOptions) (store.Result, error) {
	if q.Empty() {
		return store.Result{}, store.ErrEmptyQuery
	}
	if err := q.Check(); err != nil {
		return store.Result{}, err
	}
	if o.Limit <= 0 {
		o.Limit = 10
	}
	matches, err := s.matches(q, o)
	if err != nil {
		return store.Result{}, err
	}
	out := store.Result{Hits: []store.Hit{}}
	held := map[int]bool{}
	for _, m := range matches {
		hit, err := s.hit(q, m)
		if err != nil {
			return store.Result{}, err
		}
		out.Hits = append(out.Hits, hit)
		out.Total = int(min(m.total, store.MaxTotal))
		for _, i := range m.held {
			held[int(i)-1] = true
		}
	}
	for i, t := range q.Terms {
		if !held[i] {
			out.Unmatched = append(out.Unmatched, t)
		}
	}
	return out, nil
}

func (s *Store) matches(q store.Query, o store.SearchOptions) ([]match, error) {
	pats := make([]string, len(q.Terms))
	for i, t := range q.Terms {
		pats[i] = likePattern(t)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	rows, err := s.conn.Query(ctx, searchSQL, q.Terms, pats, o.Session, o.Server, o.Category, o.SinceMS, o.UntilMS, o.Limit)
	if err != nil {
		return nil, fmt.Errorf("pgstore: search: %w", err)
	}
	defer rows.Close()
	var out []match
	for rows.Next() {
		var m match
		if err := rows.Scan(&m.id, &m.held, &m.rank, &m.best, &m.total); err != nil {
			return nil, fmt.Errorf("pgstore: search: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// hit reads one matching event and the snippet of its best piece.
func (s *Store) hit(q store.Query, m match) (store.Hit, error) {
	e, err := s.Event(m.id)
	if err != nil {
		return store.Hit{}, err
	}
	h := store.Hit{Event: e, Score: store.MaxScore * float64(len(m.held)) / float64(len(q.Terms))}
	in := map[int64]bool{}
	for _, i := range m.held {
		in[i] = true
	}
	for i, t := range q.Terms {
		if !in[int64(i+1)] {
			h.Missing = append(h.Missing, t)
		}
	}
	var doc string
	var off int64
	var pre int
	ctx, cancel := s.ctx()
	defer cancel()
	err = s.conn.QueryRow(ctx, `SELECT doc, body_off, pre FROM ctxhook_docs WHERE event_id = $1 AND seq = $2`,
		m.id, m.best).Scan(&doc, &off, &pre)
	if err != nil {
		return h, fmt.Errorf("pgstore: snippet: %w", err)
	}
	h.Snippet = store.Snippet(doc, q.Terms, snippetWidth)
	if at := firstAt(doc, q.Terms); at >= pre {
		h.Offset = off + int64(at-pre)
	}
	return h, nil
}

// snippetWidth is the SQLite store's snippet width.
const snippetWidth = 300

// firstAt is where the first of terms appears in doc, any case (-1: none).
func firstAt(doc string, terms []string) int {
	lower := strings.ToLower(doc)
	best := -1
	for _, t := range terms {
		if i := strings.Index(lower, strings.ToLower(t)); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}

package pgstore

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxhook/ctxhook/host/store"
)

// searchSQL finds, for each term, the newest pieces the user may read
// that hold it as a word (the english configuration: stemmed, as FTS5's
// porter) and, unless those fill the window (as the SQLite store), the
// newest that hold it as a substring (pg_trgm's index serves the ILIKE),
// and fuses the two per event: an event ranks by how many terms it
// holds, then by how well (ts_rank_cd), then the newest first. The
// lookups are the ctxhook_search functions (searchFunctions), which the
// GIN indexes serve; the events and best pieces are then read through
// ctxhook_search.events and .pieces, which return only what the caller
// may read (a member reads no table). The filters only narrow. Only the
// page of hits reads the bodies' heads and snippets.
func searchSQL(terms, pats []string) (string, []any) {
	args := []any{}
	param := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args)+8)
	}
	var words, parts []string
	for i, t := range terms {
		n := strconv.Itoa(i + 1)
		words = append(words, `w`+n+` AS (SELECT event_id, seq, r FROM ctxhook_search.words(`+param(t)+`::text))`)
		parts = append(parts, `SELECT `+n+` AS i, event_id, seq, r FROM w`+n)
		if pats[i] != "" {
			parts = append(parts, `SELECT `+n+`, event_id, seq, 0 FROM ctxhook_search.substrings(`+param(pats[i])+`::text)
				WHERE (SELECT count(*) FROM w`+n+`) < `+strconv.Itoa(rankWindow))
		}
	}
	return `WITH ` + strings.Join(words, ",\n") + `, m AS (` + strings.Join(parts, "\nUNION ALL\n") + `
), per AS (
	SELECT event_id, array_agg(DISTINCT i) AS held, sum(r) AS r, (array_agg(seq ORDER BY r DESC))[1] AS best
	FROM m GROUP BY event_id
), top AS (
	SELECT per.event_id, per.held, per.r, per.best, count(*) OVER () AS total
	FROM per JOIN ctxhook_search.events(ARRAY(SELECT event_id FROM per), 0) e ON e.id = per.event_id
	WHERE ($1::text = '' OR e.session = $1::text) AND ($2::text = '' OR e.server = $2::text)
		AND ($3::text = '' OR e.category = $3::text)
		AND ($4::bigint = 0 OR e.ts_ms >= $4::bigint) AND ($5::bigint = 0 OR e.ts_ms < $5::bigint)
		AND ($8::text = '' OR NOT e.mine OR e.machine <> $8::text)
	ORDER BY cardinality(per.held) DESC, per.r DESC, per.event_id DESC
	LIMIT $6::bigint
)
SELECT ` + prefixed("e") + `, top.held, top.r, bd.doc, bd.body_off, bd.pre, top.total
FROM top JOIN ctxhook_search.events(ARRAY(SELECT event_id FROM top), $7::int) e ON e.id = top.event_id
JOIN ctxhook_search.pieces(ARRAY(SELECT event_id FROM top ORDER BY event_id), ARRAY(SELECT best FROM top ORDER BY event_id)) bd
	ON bd.event_id = top.event_id AND bd.seq = top.best
ORDER BY cardinality(top.held) DESC, top.r DESC, e.id DESC`, args
}

// rankWindow is how many pieces a lookup returns at most (searchFunctions).
const rankWindow = 1000

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

// match is one matching event, with its best piece.
type match struct {
	event store.Event
	held  []int64
	rank  float64
	doc   string
	off   int64
	pre   int32
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
	sql, targs := searchSQL(q.Terms, pats)
	args := append([]any{o.Session, o.Server, o.Category, o.SinceMS, o.UntilMS, o.Limit, store.HeadSize, o.NotFromMachine}, targs...)
	rows, err := s.conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("pgstore: search: %w", err)
	}
	defer rows.Close()
	var out []match
	for rows.Next() {
		var m match
		m.event, err = scanEvent(rows, true, &m.held, &m.rank, &m.doc, &m.off, &m.pre, &m.total)
		if err != nil {
			return nil, fmt.Errorf("pgstore: search: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// hit is one match as a store.Hit: its missing terms, and the snippet
// of its best piece with where the snippet's match is in the body.
func (s *Store) hit(q store.Query, m match) (store.Hit, error) {
	h := store.Hit{Event: m.event, Score: store.MaxScore * float64(len(m.held)) / float64(len(q.Terms))}
	in := map[int64]bool{}
	for _, i := range m.held {
		in[i] = true
	}
	for i, t := range q.Terms {
		if !in[int64(i+1)] {
			h.Missing = append(h.Missing, t)
		}
	}
	h.Snippet = store.Snippet(m.doc, q.Terms, snippetWidth)
	if at := firstAt(m.doc, q.Terms); at >= int(m.pre) {
		h.Offset = m.off + int64(at-int(m.pre))
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

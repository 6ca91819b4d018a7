package store

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ncruces/go-sqlite3"
)

// Event is a stored event: the plugin's abi.Event plus the id the store
// gave it.
type Event struct {
	ID int64 `json:"id"`
	abi.Event
}

const eventCols = `id, ts_ms, session, harness, hook_event, category, tool, server, tool_use_id, cwd,
	args, response, text, response_bytes, truncated, redactions, event_key, context_bytes`

func scanEvent(st *sqlite3.Stmt) Event {
	return Event{ID: st.ColumnInt64(0), Event: abi.Event{
		TimeMS: st.ColumnInt64(1), Session: st.ColumnText(2), Harness: st.ColumnText(3),
		HookEvent: st.ColumnText(4), Category: st.ColumnText(5), Tool: st.ColumnText(6), Server: st.ColumnText(7),
		ToolUseID: st.ColumnText(8), Cwd: st.ColumnText(9), Args: st.ColumnText(10), Response: st.ColumnText(11),
		Text: st.ColumnText(12), ResponseBytes: st.ColumnInt(13), Truncated: st.ColumnBool(14), Redactions: st.ColumnInt(15),
		Key: st.ColumnText(16), ContextBytes: st.ColumnInt(17),
	}}
}

// Event returns one event by id.
func (s *Store) Event(id int64) (Event, error) {
	st, _, err := s.conn.Prepare(`SELECT ` + eventCols + ` FROM events WHERE id = ?`)
	if err != nil {
		return Event{}, fmt.Errorf("store: %w", err)
	}
	defer st.Close()
	st.BindInt64(1, id)
	if !st.Step() {
		if err := st.Err(); err != nil {
			return Event{}, fmt.Errorf("store: %w", err)
		}
		return Event{}, fmt.Errorf("%w: event %d", ErrNotFound, id)
	}
	return scanEvent(st), nil
}

// EventByRef returns an event by id ("42") or by the key the plugin gave
// it ("e3f09c2a41b7d5e8").
func (s *Store) EventByRef(ref string) (Event, error) {
	ref = strings.TrimPrefix(strings.TrimSpace(ref), "#")
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		return s.Event(id)
	}
	st, _, err := s.conn.Prepare(`SELECT ` + eventCols + ` FROM events WHERE event_key = ? AND event_key != '' ORDER BY id LIMIT 1`)
	if err != nil {
		return Event{}, fmt.Errorf("store: %w", err)
	}
	defer st.Close()
	st.BindText(1, ref)
	if !st.Step() {
		if err := st.Err(); err != nil {
			return Event{}, fmt.Errorf("store: %w", err)
		}
		return Event{}, fmt.Errorf("%w: event %q", ErrNotFound, ref)
	}
	return scanEvent(st), nil
}

// SearchOptions filter and bound a search.
type SearchOptions struct {
	Session  string
	Server   string
	Category string
	SinceMS  int64 // events at or after (0: no bound)
	UntilMS  int64 // events before (0: no bound)
	Limit    int   // default 10
}

// Hit is one search result.
type Hit struct {
	Event   Event   `json:"event"`
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet"`
}

// ErrEmptyQuery is returned when a query has no terms.
var ErrEmptyQuery = errors.New("store: empty query")

// rrfK is the reciprocal-rank-fusion constant: results ranked by both
// indexes rise, and neither index's raw BM25 scale dominates.
const rrfK = 60

// Search finds events matching q in either index and fuses the rankings.
func (s *Store) Search(q Query, o SearchOptions) ([]Hit, error) {
	hits, _, err := s.SearchTotal(q, o)
	return hits, err
}

// corpus is one searchable table and its two indexes. Filters bind as
// ?2..?6 (session, server, category, since, until) on rows aliased e.
type corpus struct{ table, words, trigrams, filter string }

var (
	eventsCorpus = corpus{"events", "events_fts", "events_tri",
		`(?2 = '' OR e.session = ?2) AND (?3 = '' OR e.server = ?3) AND (?4 = '' OR e.category = ?4)
		AND (?5 = 0 OR e.ts_ms >= ?5) AND (?6 = 0 OR e.ts_ms < ?6)`}
	// Transcript chunks have no server, and their category is
	// "transcript": a server filter, or another category, excludes them.
	chunksCorpus = corpus{"chunks", "chunks_fts", "chunks_tri",
		`(?2 = '' OR e.session = ?2) AND ?3 = '' AND (?4 = '' OR ?4 = '` + CategoryTranscript + `')
		AND (?5 = 0 OR e.ts_ms >= ?5) AND (?6 = 0 OR e.ts_ms < ?6)`}
)

// CategoryTranscript is the category transcript chunks are found under.
const CategoryTranscript = "transcript"

// Ranking and counting bounds. BM25 costs a score per matching document,
// and a common word matches most of a large store, so each index ranks at
// most its newest rankWindow matches (session memory is mostly about the
// recent past), and totals are exact up to MaxTotal.
const (
	rankWindow = 1000
	// MaxTotal caps SearchTotal's count; a total at the cap is a lower bound.
	MaxTotal = 1000
)

// SearchTotal is Search that also counts the matching events (in either
// index), up to MaxTotal.
func (s *Store) SearchTotal(q Query, o SearchOptions) ([]Hit, int, error) {
	if o.Limit <= 0 {
		o.Limit = 10
	}
	ids, scores, total, err := s.rank(eventsCorpus, q, o)
	if err != nil {
		return nil, 0, err
	}
	hits := make([]Hit, 0, len(ids))
	for _, id := range ids {
		e, err := s.Event(id)
		if err != nil {
			return nil, 0, err
		}
		hits = append(hits, Hit{Event: e, Score: scores[id], Snippet: Snippet(e.body(), q.Terms, 160)})
	}
	return hits, max(total, len(hits)), nil
}

// rank finds rows of c matching q, fuses the two indexes' rankings (RRF),
// and returns the best o.Limit ids, their scores, and the count of
// matches up to MaxTotal.
func (s *Store) rank(c corpus, q Query, o SearchOptions) ([]int64, map[int64]float64, int, error) {
	if q.Empty() {
		return nil, nil, 0, ErrEmptyQuery
	}
	pool := o.Limit * 5
	filtered := o.Session != "" || o.Server != "" || o.Category != "" || o.SinceMS != 0 || o.UntilMS != 0
	scores := map[int64]float64{}
	// index scores the newest rankWindow matches of one index (with BM25,
	// or by recency alone) and adds the best pool of them to the fused
	// scores. It returns how many matched within the window.
	index := func(table, match string, withBM25 bool) (int, error) {
		if match == "" {
			return 0, nil
		}
		score := "0"
		if withBM25 {
			score = "bm25(" + table + ")"
		}
		sql := `SELECT rowid, ` + score + ` FROM ` + table + ` WHERE ` + table + ` MATCH ?1 ORDER BY rowid DESC LIMIT ?7`
		if filtered {
			sql = `SELECT f.rowid, ` + score + ` FROM ` + table + ` f JOIN ` + c.table + ` e ON e.id = f.rowid
				WHERE ` + table + ` MATCH ?1 AND ` + c.filter + ` ORDER BY f.rowid DESC LIMIT ?7`
		}
		st, _, err := s.conn.Prepare(sql)
		if err != nil {
			return 0, err
		}
		defer st.Close()
		bindAll(st, match, o.Session, o.Server, o.Category, o.SinceMS, o.UntilMS, int64(rankWindow))
		type cand struct {
			id    int64
			score float64
		}
		var cands []cand
		for st.Step() {
			cands = append(cands, cand{st.ColumnInt64(0), st.ColumnFloat(1)})
		}
		if err := st.Err(); err != nil {
			return 0, err
		}
		// bm25() is lower for better matches; ties (and recency-only
		// ranking) keep the newest first.
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].score < cands[j].score })
		for i, c := range cands {
			if i == pool {
				break
			}
			scores[c.id] += 1.0 / float64(rrfK+i+1)
		}
		return len(cands), nil
	}
	words, err := index(c.words, q.fts(), true)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("store: search: %w", err)
	}
	// The trigram index is for what words miss (substrings, camelCase,
	// paths). When the word index found the terms, BM25 over trigrams
	// (whose phrase statistics cost a scan of every document sharing a
	// trigram) adds little: trigram matches then rank by recency.
	if _, err := index(c.trigrams, q.trigram(), words == 0); err != nil {
		return nil, nil, 0, fmt.Errorf("store: search: %w", err)
	}
	total, err := s.countMatches(c, q, o, filtered)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("store: search: %w", err)
	}
	ids := make([]int64, 0, len(scores))
	for id := range scores {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if scores[ids[i]] != scores[ids[j]] {
			return scores[ids[i]] > scores[ids[j]]
		}
		return ids[i] > ids[j] // newer first on ties
	})
	if len(ids) > o.Limit {
		ids = ids[:o.Limit]
	}
	return ids, scores, total, nil
}

// countMatches counts the rows either index of c matches, filters
// applied, up to MaxTotal.
func (s *Store) countMatches(c corpus, q Query, o SearchOptions, filtered bool) (int, error) {
	var parts []string
	args := []any{"", o.Session, o.Server, o.Category, o.SinceMS, o.UntilMS}
	for i, m := range []struct{ table, match string }{{c.words, q.fts()}, {c.trigrams, q.trigram()}} {
		args = append(args, m.match)
		if m.match != "" {
			parts = append(parts, `SELECT rowid FROM `+m.table+` WHERE `+m.table+` MATCH ?`+strconv.Itoa(7+i))
		}
	}
	if len(parts) == 0 {
		return 0, nil
	}
	limit := strconv.Itoa(MaxTotal)
	if !filtered && len(parts) == 2 {
		// The union can only be larger: when words alone reach the cap,
		// the trigram side need not be read.
		n, err := s.count(`SELECT count(*) FROM (`+parts[0]+` LIMIT `+limit+`)`, args)
		if err != nil || n >= MaxTotal {
			return n, err
		}
	}
	union := strings.Join(parts, " UNION ")
	sql := `SELECT count(*) FROM (` + union + ` LIMIT ` + limit + `)`
	if filtered {
		sql = `SELECT count(*) FROM (SELECT e.id FROM ` + c.table + ` e WHERE e.id IN (` + union + `) AND ?1 = '' AND ` + c.filter +
			` LIMIT ` + limit + `)`
	}
	return s.count(sql, args)
}

func (s *Store) count(sql string, args []any) (int, error) {
	st, _, err := s.conn.Prepare(sql)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	bindAll(st, args...)
	if !st.Step() {
		return 0, st.Err()
	}
	return st.ColumnInt(0), st.Err()
}

func (e Event) body() string { return searchBody(e.Event) }

// Snippet returns about width bytes of body around the first term found
// (case-insensitively), on one line.
func Snippet(body string, terms []string, width int) string {
	lower := asciiLower(body) // keeps byte offsets, unlike strings.ToLower
	at := -1
	for _, t := range terms {
		if i := strings.Index(lower, asciiLower(t)); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if at < 0 {
		at = 0
	}
	start := max(at-width/3, 0)
	end := min(start+width, len(body))
	for start > 0 && !utf8.RuneStart(body[start]) {
		start--
	}
	for end < len(body) && !utf8.RuneStart(body[end]) {
		end++
	}
	s := strings.Join(strings.Fields(body[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(body) {
		s += "…"
	}
	return s
}

// Stats summarises one session, or every session when session is "".
type Stats struct {
	Session       string           `json:"session,omitempty"`
	Sessions      int64            `json:"sessions"`
	Events        int64            `json:"events"`
	BytesCaptured int64            `json:"bytes_captured"`
	BytesStored   int64            `json:"bytes_stored"`
	Redactions    int64            `json:"redactions"`
	Truncated     int64            `json:"truncated"`
	ByCategory    map[string]int64 `json:"by_category"`
	ByServer      map[string]int64 `json:"by_server"`
	Tallies       map[string]int64 `json:"tallies"`
	FirstMS       int64            `json:"first_ts_ms"`
	LastMS        int64            `json:"last_ts_ms"`
	// BytesKeptOut is what shaping kept out of the model's context: the
	// full size of each shaped response minus what the model received.
	BytesKeptOut int64 `json:"bytes_kept_out"`
	// MCPCalls counts recorded MCP tool calls.
	MCPCalls int64 `json:"mcp_calls"`
}

// Stats computes a summary.
func (s *Store) Stats(session string) (Stats, error) {
	out := Stats{Session: session, ByCategory: map[string]int64{}, ByServer: map[string]int64{}, Tallies: map[string]int64{}}
	q := func(sql string, each func(*sqlite3.Stmt)) error {
		st, _, err := s.conn.Prepare(sql)
		if err != nil {
			return err
		}
		defer st.Close()
		st.BindText(1, session)
		for st.Step() {
			each(st)
		}
		return st.Err()
	}
	where := ` WHERE (?1 = '' OR session = ?1)`
	err := errors.Join(
		q(`SELECT count(DISTINCT session), count(*), coalesce(sum(response_bytes),0),
			coalesce(sum(length(response)+length(text)+length(args)),0), coalesce(sum(redactions),0),
			coalesce(sum(truncated),0), coalesce(min(ts_ms),0), coalesce(max(ts_ms),0),
			coalesce(sum(CASE WHEN context_bytes > 0 THEN max(response_bytes - context_bytes, 0) END),0),
			coalesce(sum(category = 'mcp'),0) FROM events`+where,
			func(st *sqlite3.Stmt) {
				out.Sessions, out.Events, out.BytesCaptured = st.ColumnInt64(0), st.ColumnInt64(1), st.ColumnInt64(2)
				out.BytesStored, out.Redactions, out.Truncated = st.ColumnInt64(3), st.ColumnInt64(4), st.ColumnInt64(5)
				out.FirstMS, out.LastMS = st.ColumnInt64(6), st.ColumnInt64(7)
				out.BytesKeptOut, out.MCPCalls = st.ColumnInt64(8), st.ColumnInt64(9)
			}),
		q(`SELECT category, count(*) FROM events`+where+` GROUP BY 1`, func(st *sqlite3.Stmt) {
			out.ByCategory[st.ColumnText(0)] = st.ColumnInt64(1)
		}),
		q(`SELECT server, count(*) FROM events`+where+` AND server != '' GROUP BY 1`, func(st *sqlite3.Stmt) {
			out.ByServer[st.ColumnText(0)] = st.ColumnInt64(1)
		}),
		q(`SELECT name, sum(count) FROM tallies`+where+` GROUP BY 1`, func(st *sqlite3.Stmt) {
			out.Tallies[st.ColumnText(0)] = st.ColumnInt64(1)
		}),
	)
	if err != nil {
		return out, fmt.Errorf("store: stats: %w", err)
	}
	return out, nil
}

// Sessions lists session ids, most recent first.
func (s *Store) Sessions(limit int) ([]string, error) {
	st, _, err := s.conn.Prepare(`SELECT session FROM events GROUP BY session ORDER BY max(id) DESC LIMIT ?`)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer st.Close()
	st.BindInt(1, limit)
	var out []string
	for st.Step() {
		out = append(out, st.ColumnText(0))
	}
	return out, st.Err()
}

// Check runs SQLite's integrity checks on the tables and FTS5's on every
// full-text index.
func (s *Store) Check() error {
	st, _, err := s.conn.Prepare(`PRAGMA integrity_check`)
	if err != nil {
		return err
	}
	defer st.Close()
	for st.Step() {
		if r := st.ColumnText(0); r != "ok" {
			return fmt.Errorf("store: integrity: %s", r)
		}
	}
	if err := st.Err(); err != nil {
		return err
	}
	for _, t := range []string{"events_fts", "events_tri", "chunks_fts", "chunks_tri"} {
		if err := s.conn.Exec(`INSERT INTO ` + t + `(` + t + `) VALUES('integrity-check')`); err != nil {
			return fmt.Errorf("store: %s integrity: %w", t, err)
		}
	}
	return nil
}

// Body is the event's readable text: the rendered text of the response
// when there is one, else the response as stored.
func (e Event) Body() string { return e.body() }

// asciiLower lower-cases A-Z only, so offsets in the result are offsets in s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// IndexState returns the number of events, the highest id and the newest
// event's time: enough to tell whether the index changed, and how fresh
// it is.
func (s *Store) IndexState() (events, maxID, newestMS int64, err error) {
	st, _, err := s.conn.Prepare(`SELECT count(*), coalesce(max(id),0), coalesce(max(ts_ms),0) FROM events`)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("store: %w", err)
	}
	defer st.Close()
	if st.Step() {
		events, maxID, newestMS = st.ColumnInt64(0), st.ColumnInt64(1), st.ColumnInt64(2)
	}
	return events, maxID, newestMS, st.Err()
}

// Around returns up to before events preceding and after events following
// event id in its session, in id order, the event itself included.
func (s *Store) Around(id int64, before, after int) ([]Event, error) {
	anchor, err := s.Event(id)
	if err != nil {
		return nil, err
	}
	return around(s, "events", eventCols, scanEvent, anchor, anchor.Session, id, before, after)
}

// around returns the rows of table in session before and after id, in
// id order, with anchor in its place.
func around[T any](s *Store, table, cols string, scan func(*sqlite3.Stmt) T, anchor T, session string, id int64, before, after int) ([]T, error) {
	query := func(sql string, n int) ([]T, error) {
		if n <= 0 {
			return nil, nil
		}
		st, _, err := s.conn.Prepare(`SELECT ` + cols + ` FROM ` + table + ` WHERE session = ? AND ` + sql)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		defer st.Close()
		bindAll(st, session, id, int64(n))
		var out []T
		for st.Step() {
			out = append(out, scan(st))
		}
		return out, st.Err()
	}
	prev, err := query(`id < ? ORDER BY id DESC LIMIT ?`, before)
	if err != nil {
		return nil, err
	}
	next, err := query(`id > ? ORDER BY id LIMIT ?`, after)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(prev)+1+len(next))
	for i := len(prev) - 1; i >= 0; i-- {
		out = append(out, prev[i])
	}
	out = append(out, anchor)
	return append(out, next...), nil
}

// MaxScore is the highest fused score a hit can have (first in both
// indexes), so score/MaxScore is a confidence in [0, 1].
const MaxScore = 2.0 / (rrfK + 1)

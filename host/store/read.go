package store

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ncruces/go-sqlite3"
)

// Event is a stored event: the plugin's abi.Event plus the id the store
// gave it. Read from the store, Response and Text hold only the head of
// a body stored in parts (HeadSize bytes): ResponseSize and TextSize say
// how long the whole bodies are, and ReadBody and WriteBody read them.
type Event struct {
	ID int64 `json:"id"`
	abi.Event
	// ResponseSize and TextSize are the stored sizes, in bytes, of the
	// whole response and text (ResponseBytes is the size captured, before
	// redaction).
	ResponseSize int64 `json:"response_size"`
	TextSize     int64 `json:"text_size"`
	// ResponseParts and TextParts count the parts stored after the head:
	// 0 when Response (Text) is the whole body.
	ResponseParts int `json:"response_parts,omitempty"`
	TextParts     int `json:"text_parts,omitempty"`
}

// Whole reports whether Response and Text are the whole bodies.
func (e Event) Whole() bool { return e.ResponseParts == 0 && e.TextParts == 0 }

// BodyField is the field Body shows: the text when there is one, else the
// response.
func (e Event) BodyField() Field {
	if e.Text != "" || e.TextSize > 0 {
		return FieldText
	}
	return FieldResponse
}

// BodySize is the size of the whole body Body is the head of.
func (e Event) BodySize() int64 {
	if e.BodyField() == FieldText {
		return e.TextSize
	}
	return e.ResponseSize
}

// eventCols are the columns scanEvent reads; a read-only store of an
// older schema has no sizes (its bodies are whole in the row).
func (s *Store) eventCols() string {
	const cols = `id, ts_ms, session, harness, hook_event, category, tool, server, tool_use_id, cwd,
	args, response, text, response_bytes, truncated, redactions, event_key, context_bytes, `
	if !s.hasParts() {
		return cols + `NULL, NULL, 0, 0, ''`
	}
	return cols + `response_size, text_size, response_parts, text_parts, response_form`
}

func scanEvent(st *sqlite3.Stmt) Event { return scanEventAs(st, true) }

// scanEventAs is scanEvent; with derive false, a derived response is
// left empty instead of rebuilt from the text.
func scanEventAs(st *sqlite3.Stmt, derive bool) Event {
	e := Event{ID: st.ColumnInt64(0), Event: abi.Event{
		TimeMS: st.ColumnInt64(1), Session: st.ColumnText(2), Harness: st.ColumnText(3),
		HookEvent: st.ColumnText(4), Category: st.ColumnText(5), Tool: st.ColumnText(6), Server: st.ColumnText(7),
		ToolUseID: st.ColumnText(8), Cwd: st.ColumnText(9), Args: st.ColumnText(10), Response: st.ColumnText(11),
		Text: st.ColumnText(12), ResponseBytes: st.ColumnInt(13), Truncated: st.ColumnBool(14), Redactions: st.ColumnInt(15),
		Key: st.ColumnText(16), ContextBytes: st.ColumnInt(17),
		ResponseForm: st.ColumnText(22),
	}, ResponseParts: st.ColumnInt(20), TextParts: st.ColumnInt(21)}
	e.ResponseSize, e.TextSize = int64(len(e.Response)), int64(len(e.Text))
	if st.ColumnType(18) != sqlite3.NULL {
		e.ResponseSize = st.ColumnInt64(18)
	}
	if st.ColumnType(19) != sqlite3.NULL {
		e.TextSize = st.ColumnInt64(19)
	}
	if e.ResponseForm != "" && derive {
		e.Response = derivedHead(e.ResponseForm, e.Text, e.TextParts == 0)
	}
	return e
}

// Event returns one event by id, its bodies' heads only (see Event).
func (s *Store) Event(id int64) (Event, error) { return s.eventByID(id, true) }

func (s *Store) eventByID(id int64, derive bool) (Event, error) {
	return s.eventWhere(`id = ?`, func(st *sqlite3.Stmt) { st.BindInt64(1, id) }, strconv.FormatInt(id, 10), derive)
}

// EventByRef returns an event by id ("42") or by the key the plugin gave
// it ("e3f09c2a41b7d5e8"), its bodies' heads only.
func (s *Store) EventByRef(ref string) (Event, error) { return s.eventByRef(ref, true) }

// ReadBack reads the row of the event ref (an id or a key) as EventByRef
// does, every column of it, but does not rebuild a derived response from
// the text: that rebuild is CPU work (up to a MiB of JSON escaping, 7%
// of storing a 1 MiB result) that proves nothing about the pages. The
// spool's writer reads each event back so before it deletes its file.
func (s *Store) ReadBack(ref string) error {
	_, err := s.eventByRef(ref, false)
	return err
}

func (s *Store) eventByRef(ref string, derive bool) (Event, error) {
	ref = strings.TrimPrefix(strings.TrimSpace(ref), "#")
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		return s.eventByID(id, derive)
	}
	return s.eventWhere(`event_key = ? AND event_key != '' ORDER BY id LIMIT 1`, func(st *sqlite3.Stmt) { st.BindText(1, ref) }, strconv.Quote(ref), derive)
}

// eventWhere reads the first event row matching where (bound by bind);
// what names it in the not-found error.
func (s *Store) eventWhere(where string, bind func(*sqlite3.Stmt), what string, derive bool) (Event, error) {
	st, _, err := s.conn.Prepare(`SELECT ` + s.eventCols() + ` FROM events WHERE ` + where)
	if err != nil {
		return Event{}, fmt.Errorf("store: %w", err)
	}
	defer st.Close()
	bind(st)
	if !st.Step() {
		if err := st.Err(); err != nil {
			return Event{}, fmt.Errorf("store: %w", err)
		}
		return Event{}, fmt.Errorf("%w: event %s", ErrNotFound, what)
	}
	return scanEventAs(st, derive), nil
}

// SearchOptions filter and bound a search.
type SearchOptions struct {
	Session  string
	Server   string
	Category string
	SinceMS  int64 // events at or after (0: no bound)
	UntilMS  int64 // events before (0: no bound)
	Limit    int   // default 10
	// NotFromMachine, on the shared store only, leaves out the caller's
	// own events from that machine: its local store holds them already,
	// under ids that get_context can walk. The SQLite store ignores it.
	NotFromMachine string
}

// Hit is one search result.
type Hit struct {
	Event   Event   `json:"event"`
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet"`
	// Offset is where in the body (Event.BodyField) the snippet's match
	// starts (0 when no term was found as written, e.g. a stemmed match):
	// ReadBody from there reads on from the match.
	Offset int64 `json:"offset"`
	// Missing are the query's terms the event does not hold: a hit
	// holding only some of them is a partial match.
	Missing []string `json:"missing,omitempty"`
}

// ErrEmptyQuery is returned when a query has no terms.
var ErrEmptyQuery = errors.New("store: empty query")

// A query is bounded: every term costs a lookup in each index and its
// parts, and a 500 KB query ran SQLite out of memory (a panic in the
// MCP server, which cut the agent off from it). Longer ones are refused
// with ErrQueryTooLong, which names the limits.
const (
	MaxQueryBytes = 4096
	MaxQueryTerms = 64
)

// ErrQueryTooLong is returned for a query past MaxQueryBytes or
// MaxQueryTerms.
var ErrQueryTooLong = fmt.Errorf("store: query too long: at most %d bytes and %d terms", MaxQueryBytes, MaxQueryTerms)

// Search finds events matching q in either index and fuses the rankings.
func (s *Store) Search(q Query, o SearchOptions) ([]Hit, error) {
	hits, _, err := s.SearchTotal(q, o)
	return hits, err
}

// corpus is one searchable table and its two indexes. Filters bind as
// ?2..?6 (session, server, category, since, until) on rows aliased e.
// Events also have parts, indexed in partWords and partTrigrams.
type corpus struct{ table, words, trigrams, filter, partWords, partTrigrams, weights string }

var (
	eventsCorpus = corpus{"events", "events_fts", "events_tri",
		`(?2 = '' OR e.session = ?2) AND (?3 = '' OR e.server = ?3) AND (?4 = '' OR e.category = ?4)
		AND (?5 = 0 OR e.ts_ms >= ?5) AND (?6 = 0 OR e.ts_ms < ?6)`, "event_parts_fts", "event_parts_tri",
		// tool, server, args, body: a term in the call's arguments names
		// the record fetched.
		"bm25(events_fts, 2, 2, 4, 1)"}
	// Transcript chunks have no server, and their category is
	// "transcript": a server filter, or another category, excludes them.
	chunksCorpus = corpus{"chunks", "chunks_fts", "chunks_tri",
		`(?2 = '' OR e.session = ?2) AND ?3 = '' AND (?4 = '' OR ?4 = '` + CategoryTranscript + `')
		AND (?5 = 0 OR e.ts_ms >= ?5) AND (?6 = 0 OR e.ts_ms < ?6)`, "", "", "bm25(chunks_fts)"}
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
	// snippetWidth is about how many bytes a hit's snippet shows: enough
	// for a matched line and its neighbour, or a field and its value
	// (an error line, a title, a command run to 60-120 bytes).
	snippetWidth = 300
)

// SearchTotal is Search that also counts the matching events (in either
// index), up to MaxTotal.
func (s *Store) SearchTotal(q Query, o SearchOptions) ([]Hit, int, error) {
	r, err := s.SearchResult(q, o)
	return r.Hits, r.Total, err
}

// Result is a search's answer: the hits, best first, and what the query
// was taken to mean.
type Result struct {
	Hits []Hit
	// Total counts the events holding any term, up to MaxTotal.
	Total int
	// Unmatched are the terms no event holds; Ignored the question and
	// filler words left out; Hints the words taken as hints at a kind
	// of record or a field.
	Unmatched, Ignored, Hints []string
}

// HeldBy drops from Unmatched the terms a transcript chunk found holds
// (chunks are searched on their own, SearchChunks).
func (r *Result) HeldBy(chunks []ChunkHit) {
	var out []string
	for _, t := range r.Unmatched {
		held := false
		for _, c := range chunks {
			held = held || !slices.Contains(c.Missing, t)
		}
		if !held {
			out = append(out, t)
		}
	}
	r.Unmatched = out
}

// Complete reports whether the best hit holds every term.
func (r Result) Complete() bool { return len(r.Hits) > 0 && len(r.Hits[0].Missing) == 0 }

// Note says, when no hit holds every term, that the hits are the
// nearest partial matches, and which terms nothing holds: what to
// rephrase. It is "" when the best hit holds them all.
func (r Result) Note() string {
	if r.Complete() {
		return ""
	}
	var b strings.Builder
	if len(r.Hits) > 0 {
		b.WriteString("No event holds every term: the nearest partial matches come first.")
	} else {
		b.WriteString("No event holds any term.")
	}
	if len(r.Unmatched) > 0 {
		fmt.Fprintf(&b, " In no event: %s.", strings.Join(r.Unmatched, ", "))
	}
	return b.String()
}

// SearchResult is SearchTotal with what the query was taken to mean.
func (s *Store) SearchResult(q Query, o SearchOptions) (Result, error) {
	if o.Limit <= 0 {
		o.Limit = 10
	}
	r, err := s.rank(eventsCorpus, q, o)
	if err != nil {
		return Result{}, err
	}
	out := Result{Hits: make([]Hit, 0, len(r.ids)), Unmatched: r.unmatched, Ignored: r.plan.ignored}
	for _, h := range r.plan.hints {
		out.Hints = append(out.Hints, h.word)
	}
	for _, id := range r.ids {
		e, err := s.Event(id)
		if err != nil {
			return Result{}, err
		}
		missing := r.missing(id)
		snippet, at := s.hitSnippet(e, r.plan.snippetTerms(missing), r.parts[id])
		out.Hits = append(out.Hits, Hit{Event: e, Score: r.scores[id], Snippet: snippet, Offset: at, Missing: missing})
	}
	out.Total = max(r.total, len(out.Hits))
	return out, nil
}

// hitSnippet is the snippet of a hit: where most terms meet in the
// body's head, or in part, the part that matched best (0: none did),
// when more of them meet there.
func (s *Store) hitSnippet(e Event, terms []snipTerm, part int64) (string, int64) {
	body := e.Body()
	snippet, at, worth := snippetOf(body, terms, snippetWidth, false, int64(len(body)) < e.BodySize())
	if part == 0 {
		return snippet, int64(at)
	}
	doc, base, err := s.partDoc(part)
	if err != nil {
		return snippet, int64(at)
	}
	if ps, pat, pw := snippetOf(doc, terms, snippetWidth, base > 0, base+int64(len(doc)) < e.BodySize()); pw > worth {
		return ps, base + int64(pat)
	}
	return snippet, int64(at)
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
	// full size of each shaped response minus what the model received,
	// counted only when the shaped answer reached the harness (the
	// plugin's bytes_kept_out tally).
	BytesKeptOut int64 `json:"bytes_kept_out"`
	// RefetchesAvoided counts re-fetch hints after which no identical
	// call ran: hints given less hinted calls that ran all the same.
	RefetchesAvoided int64 `json:"refetches_avoided"`
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
			coalesce(sum(`+s.storedBytes()+`),0), coalesce(sum(redactions),0),
			coalesce(sum(truncated),0), coalesce(min(ts_ms),0), coalesce(max(ts_ms),0),
			coalesce(sum(category = 'mcp'),0) FROM events`+where,
			func(st *sqlite3.Stmt) {
				out.Sessions, out.Events, out.BytesCaptured = st.ColumnInt64(0), st.ColumnInt64(1), st.ColumnInt64(2)
				out.BytesStored, out.Redactions, out.Truncated = st.ColumnInt64(3), st.ColumnInt64(4), st.ColumnInt64(5)
				out.FirstMS, out.LastMS = st.ColumnInt64(6), st.ColumnInt64(7)
				out.MCPCalls = st.ColumnInt64(8)
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
	out.BytesKeptOut = out.Tallies[abi.TallyKeptOut]
	out.RefetchesAvoided = max(out.Tallies[abi.TallyRefetch]-out.Tallies[abi.TallyRefetchMade], 0)
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
// full-text index, and checks that every event's parts are all there:
// numbered from 1, contiguous from the head's end to the body's size,
// each as long as it says, of an event that exists, and each in the
// indexes when it should be.
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
	tables := []string{"events_fts", "events_tri", "chunks_fts", "chunks_tri"}
	if s.hasParts() {
		tables = append(tables, "event_parts_fts", "event_parts_tri")
	}
	for _, t := range tables {
		if err := s.conn.Exec(`INSERT INTO ` + t + `(` + t + `) VALUES('integrity-check')`); err != nil {
			return fmt.Errorf("store: %s integrity: %w", t, err)
		}
	}
	if !s.hasParts() {
		return nil
	}
	for _, c := range []struct{ what, sql string }{
		{"parts of a missing event, or not numbered 1 to n, or not adding up to the body", `SELECT count(*) FROM (
			SELECT event_id, field, count(*) AS n, max(seq) AS last, min(offset) AS first, sum(bytes) AS bytes
			FROM event_parts GROUP BY event_id, field) g LEFT JOIN events e ON e.id = g.event_id
			WHERE e.id IS NULL OR g.n != g.last
			OR g.n != CASE g.field WHEN 'text' THEN e.text_parts WHEN 'response' THEN e.response_parts END
			OR g.first != length(CAST(CASE g.field WHEN 'text' THEN e.text ELSE e.response END AS BLOB))
			OR g.first + g.bytes != CASE g.field WHEN 'text' THEN e.text_size ELSE e.response_size END`},
		{"parts not contiguous", `SELECT count(*) FROM (SELECT offset,
			lag(offset + bytes) OVER (PARTITION BY event_id, field ORDER BY seq) AS want FROM event_parts)
			WHERE want IS NOT NULL AND offset != want`},
		{"parts not as long as they say", `SELECT count(*) FROM event_parts WHERE bytes != length(CAST(data AS BLOB))`},
		{"events missing their parts", `SELECT count(*) FROM events
			WHERE (response_parts > 0 OR text_parts > 0) AND id NOT IN (SELECT event_id FROM event_parts)`},
		{"parts indexed or not other than they say", `SELECT (SELECT count(*) FROM event_parts WHERE indexed & 1)
			- (SELECT count(*) FROM event_parts_fts_docsize)`},
		{"parts indexed or not other than they say", `SELECT (SELECT count(*) FROM event_parts WHERE indexed & 2)
			- (SELECT count(*) FROM event_parts_tri_docsize)`},
	} {
		n, err := s.count(c.sql, nil)
		if err != nil {
			return fmt.Errorf("store: parts: %w", err)
		}
		if n != 0 {
			return fmt.Errorf("store: integrity: %s (%d)", c.what, n)
		}
	}
	return nil
}

// storedBytes is the SQL for the bytes an event row stores, its parts
// included.
func (s *Store) storedBytes() string {
	if !s.hasParts() {
		return `length(CAST(args AS BLOB)) + length(CAST(response AS BLOB)) + length(CAST(text AS BLOB))`
	}
	return `length(CAST(args AS BLOB)) + CASE WHEN response_form != '' THEN 0
		ELSE coalesce(response_size, length(CAST(response AS BLOB))) END
		+ coalesce(text_size, length(CAST(text AS BLOB)))`
}

// Body is the event's readable text: the rendered text of the response
// when there is one, else the response as stored. For a body stored in
// parts it is the head only (BodySize is the whole size; WriteBody and
// ReadBody read the rest).
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

// indexStateSQL asks for each part on its own, so that each is answered
// the fast way: the count by walking the smallest index, the maxima from
// the ends of theirs. Asked in one SELECT over events, the three made
// SQLite scan the table: about 15 ms over 100,000 events, on every call
// of the MCP tools (the answer cache asks whether the index changed).
const indexStateSQL = `SELECT (SELECT count(*) FROM events), coalesce((SELECT max(id) FROM events),0), coalesce((SELECT max(ts_ms) FROM events),0)`

// IndexState returns the number of events, the highest id and the newest
// event's time: enough to tell whether the index changed, and how fresh
// it is.
func (s *Store) IndexState() (events, maxID, newestMS int64, err error) {
	st, _, err := s.conn.Prepare(indexStateSQL)
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
// event id in its session, in id order, the event itself included, their
// bodies' heads only.
func (s *Store) Around(id int64, before, after int) ([]Event, error) {
	anchor, err := s.Event(id)
	if err != nil {
		return nil, err
	}
	return around(s, "events", s.eventCols(), scanEvent, anchor, anchor.Session, id, before, after)
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

// MaxScore is the highest score a hit can have (rank's relevance, scaled
// to it), so score/MaxScore is a confidence in [0, 1]. The scale is the
// one scores had when two rankings were fused by reciprocal rank (2/61),
// so stored thresholds and outputs read the same.
const MaxScore = 2.0 / 61

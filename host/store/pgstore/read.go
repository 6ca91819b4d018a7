package pgstore

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/jackc/pgx/v5"
)

// eventCols are what scanEvent reads: the bodies' heads (store.HeadSize
// bytes of each, cut on a character) and their whole sizes, as the SQLite
// store's Event gives them.
var eventCols = headCols("$1")

// headCols are the event columns with heads of at most the characters
// the parameter param names (rows aliased e or unaliased).
func headCols(param string) string {
	return `id, ts_ms, session, harness, hook_event, category, tool, server, tool_use_id, cwd, args,
	left(response, ` + param + `::int), left(body_text, ` + param + `::int), response_bytes, truncated, redactions, event_key,
	context_bytes, octet_length(response), octet_length(body_text)`
}

// scanEvent reads an event (and into more, the columns after its own);
// with head, its bodies cut to their heads.
func scanEvent(row pgx.Row, head bool, more ...any) (store.Event, error) {
	var e store.Event
	var rb, red, cb int64
	err := row.Scan(append([]any{&e.ID, &e.TimeMS, &e.Session, &e.Harness, &e.HookEvent, &e.Category, &e.Tool, &e.Server,
		&e.ToolUseID, &e.Cwd, &e.Args, &e.Response, &e.Text, &rb, &e.Truncated, &red, &e.Key, &cb,
		&e.ResponseSize, &e.TextSize}, more...)...)
	e.ResponseBytes, e.Redactions, e.ContextBytes = int(rb), int(red), int(cb)
	if head {
		e.Response, e.Text = headBytes(e.Response), headBytes(e.Text)
	}
	if int64(len(e.Response)) < e.ResponseSize {
		e.ResponseParts = 1
	}
	if int64(len(e.Text)) < e.TextSize {
		e.TextParts = 1
	}
	return e, err
}

// headBytes cuts a head (left() counts characters) to HeadSize bytes.
func headBytes(s string) string {
	if len(s) <= store.HeadSize {
		return s
	}
	end := store.HeadSize
	for end > 0 && s[end]&0xC0 == 0x80 {
		end--
	}
	return s[:end]
}

// Event returns one event the user may read, its bodies' heads only.
func (s *Store) Event(id int64) (store.Event, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	e, err := scanEvent(s.conn.QueryRow(ctx, `SELECT `+eventCols+` FROM ctxhook_events WHERE id = $2::bigint`, store.HeadSize, id), true)
	if errors.Is(err, pgx.ErrNoRows) {
		return e, fmt.Errorf("%w: event %d", store.ErrNotFound, id)
	}
	if err != nil {
		return e, fmt.Errorf("pgstore: %w", err)
	}
	return e, nil
}

// EventByRef returns an event by id ("42") or by its key.
func (s *Store) EventByRef(ref string) (store.Event, error) {
	ref = strings.TrimPrefix(strings.TrimSpace(ref), "#")
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		return s.Event(id)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	e, err := scanEvent(s.conn.QueryRow(ctx, `SELECT `+eventCols+` FROM ctxhook_events
		WHERE event_key = $2::text AND event_key <> '' ORDER BY id LIMIT 1`, store.HeadSize, ref), true)
	if errors.Is(err, pgx.ErrNoRows) {
		return e, fmt.Errorf("%w: event %q", store.ErrNotFound, ref)
	}
	if err != nil {
		return e, fmt.Errorf("pgstore: %w", err)
	}
	return e, nil
}

// Around returns the events of id's session (of the same owner and
// machine) before and after it, in id order, with it in its place: what
// get_context shows around a shared hit. Row-level security applies to
// the anchor and to its neighbours alike, so a teammate's session shows
// only what it shared.
func (s *Store) Around(id int64, before, after int) ([]store.Event, error) {
	anchor, err := s.Event(id)
	if err != nil {
		return nil, err
	}
	side := func(cond string, n int) ([]store.Event, error) {
		if n <= 0 {
			return nil, nil
		}
		ctx, cancel := s.ctx()
		defer cancel()
		rows, err := s.conn.Query(ctx, `SELECT `+eventCols+` FROM ctxhook_events
			WHERE (session, owner, machine) = (SELECT session, owner, machine FROM ctxhook_events WHERE id = $2::bigint)
			AND `+cond+` LIMIT $3::int`, store.HeadSize, id, n)
		if err != nil {
			return nil, fmt.Errorf("pgstore: %w", err)
		}
		defer rows.Close()
		var out []store.Event
		for rows.Next() {
			e, err := scanEvent(rows, true)
			if err != nil {
				return nil, fmt.Errorf("pgstore: %w", err)
			}
			out = append(out, e)
		}
		return out, rows.Err()
	}
	prev, err := side(`id < $2::bigint ORDER BY id DESC`, before)
	if err != nil {
		return nil, err
	}
	next, err := side(`id > $2::bigint ORDER BY id`, after)
	if err != nil {
		return nil, err
	}
	out := make([]store.Event, 0, len(prev)+1+len(next))
	for i := len(prev) - 1; i >= 0; i-- {
		out = append(out, prev[i])
	}
	return append(append(out, anchor), next...), nil
}

// ReadBody returns bytes [offset, offset+length) of one field of event
// id, cut at its end, as the SQLite store's ReadBody (exact bytes).
func (s *Store) ReadBody(id int64, f store.Field, offset, length int64) (string, error) {
	col, ok := fields[f]
	if !ok || offset < 0 || length < 0 {
		return "", fmt.Errorf("pgstore: bad field or range %s %d+%d", f, offset, length)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	var b []byte
	err := s.conn.QueryRow(ctx, `SELECT substring(convert_to(`+col+`, 'UTF8'::name) FROM $2::int FOR $3::int)
		FROM ctxhook_events WHERE id = $1::bigint`, id, offset+1, length).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("%w: event %d", store.ErrNotFound, id)
	}
	if err != nil {
		return "", fmt.Errorf("pgstore: %w", err)
	}
	return string(b), nil
}

// Stats summarises the events the user may read, of one session or all.
// Tallies stay on the machine, so the counts that come from them are 0.
func (s *Store) Stats(session string) (store.Stats, error) {
	out := store.Stats{Session: session, ByCategory: map[string]int64{}, ByServer: map[string]int64{}, Tallies: map[string]int64{}}
	ctx, cancel := s.ctx()
	defer cancel()
	const where = ` FROM ctxhook_events WHERE ($1::text = '' OR session = $1::text)`
	err := s.conn.QueryRow(ctx, `SELECT count(DISTINCT session), count(*), coalesce(sum(response_bytes),0),
		coalesce(sum(octet_length(response) + octet_length(body_text)),0), coalesce(sum(redactions),0),
		count(*) FILTER (WHERE truncated), coalesce(min(ts_ms),0), coalesce(max(ts_ms),0),
		count(*) FILTER (WHERE category = '`+abi.CategoryMCP+`')`+where, session).Scan(
		&out.Sessions, &out.Events, &out.BytesCaptured, &out.BytesStored, &out.Redactions, &out.Truncated,
		&out.FirstMS, &out.LastMS, &out.MCPCalls)
	if err != nil {
		return out, fmt.Errorf("pgstore: stats: %w", err)
	}
	for _, g := range []struct {
		col  string
		into map[string]int64
	}{{"category", out.ByCategory}, {"server", out.ByServer}} {
		rows, err := s.conn.Query(ctx, `SELECT `+g.col+`, count(*)`+where+` AND `+g.col+` <> '' GROUP BY 1`, session)
		if err != nil {
			return out, fmt.Errorf("pgstore: stats: %w", err)
		}
		for rows.Next() {
			var k string
			var n int64
			if err := rows.Scan(&k, &n); err != nil {
				rows.Close()
				return out, fmt.Errorf("pgstore: stats: %w", err)
			}
			g.into[k] = n
		}
		rows.Close()
	}
	return out, nil
}

// Purge deletes the user's own events f selects (row-level security
// leaves the team's and others' alone, whatever the filter says). An
// administrator purges anyone's with SQL (docs/team.md).
func (s *Store) Purge(f store.PurgeFilter, dryRun, _ bool) (store.Purged, error) {
	if f == (store.PurgeFilter{}) {
		return store.Purged{}, fmt.Errorf("pgstore: purge: say what to purge")
	}
	cond := `owner = current_user AND ($1::text = '' OR session = $1::text) AND ($2::text = '' OR server = $2::text)
		AND ($3::bigint = 0 OR ts_ms < $3::bigint)`
	ctx, cancel := s.ctx()
	defer cancel()
	var p store.Purged
	err := pgx.BeginFunc(ctx, s.conn, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `SELECT count(*), coalesce(sum(octet_length(response) + octet_length(body_text)),0)
			FROM ctxhook_events WHERE `+cond, f.Session, f.Server, f.BeforeMS).Scan(&p.Events, &p.Bytes)
		if err != nil || dryRun {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM ctxhook_events WHERE `+cond, f.Session, f.Server, f.BeforeMS)
		p.Events = tag.RowsAffected()
		return err
	})
	if err != nil {
		return p, fmt.Errorf("pgstore: purge: %w", err)
	}
	return p, nil
}

package pgstore

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/jackc/pgx/v5"
)

// eventCols are what scanEvent reads of a ctxhook_search.event: the
// bodies' heads (cut by the function to the characters it was asked for)
// and their whole sizes, as the SQLite store's Event gives them.
const eventCols = `id, ts_ms, session, harness, hook_event, category, tool, server, tool_use_id, cwd, args,
	response, body_text, response_bytes, truncated, redactions, event_key, context_bytes, response_size, text_size`

// prefixed is eventCols, each named in the rows aliased alias.
func prefixed(alias string) string {
	return alias + "." + strings.Join(strings.Split(strings.ReplaceAll(eventCols, "\n\t", " "), ", "), ", "+alias+".")
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
	e, err := scanEvent(s.conn.QueryRow(ctx, `SELECT `+eventCols+` FROM ctxhook_search.events(ARRAY[$2::bigint], $1::int)`, store.HeadSize, id), true)
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
	e, err := scanEvent(s.conn.QueryRow(ctx, `SELECT `+eventCols+` FROM ctxhook_search.event_by_key($2::text, $1::int)`, store.HeadSize, ref), true)
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
// get_context shows around a shared hit. ctxhook_search.neighbours
// applies the caller's filter to the anchor and to its neighbours alike,
// so a teammate's session shows only what it shared.
func (s *Store) Around(id int64, before, after int) ([]store.Event, error) {
	anchor, err := s.Event(id)
	if err != nil {
		return nil, err
	}
	side := func(later bool, n int) ([]store.Event, error) {
		if n <= 0 {
			return nil, nil
		}
		ctx, cancel := s.ctx()
		defer cancel()
		rows, err := s.conn.Query(ctx, `SELECT `+eventCols+` FROM ctxhook_search.neighbours($2::bigint, $3::int, $4::bool, $1::int)`,
			store.HeadSize, id, n, later)
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
	prev, err := side(false, before)
	if err != nil {
		return nil, err
	}
	next, err := side(true, after)
	if err != nil {
		return nil, err
	}
	out := make([]store.Event, 0, len(prev)+1+len(next))
	return append(append(append(out, prev...), anchor), next...), nil
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
	err := s.conn.QueryRow(ctx, `SELECT * FROM ctxhook_search.read_body($1::bigint, $2::text, $3::int, $4::int)`,
		id, col, offset+1, length).Scan(&b)
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
	err := s.conn.QueryRow(ctx, `SELECT * FROM ctxhook_search.stats($1::text)`, session).Scan(
		&out.Sessions, &out.Events, &out.BytesCaptured, &out.BytesStored, &out.Redactions, &out.Truncated,
		&out.FirstMS, &out.LastMS, &out.MCPCalls)
	if err != nil {
		return out, fmt.Errorf("pgstore: stats: %w", err)
	}
	into := map[string]map[string]int64{"category": out.ByCategory, "server": out.ByServer}
	rows, _ := s.conn.Query(ctx, `SELECT kind, k, n FROM ctxhook_search.stats_groups($1::text)`, session)
	var kind, k string
	var n int64
	_, err = pgx.ForEachRow(rows, []any{&kind, &k, &n}, func() error {
		if m := into[kind]; m != nil {
			m[k] = n
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("pgstore: stats: %w", err)
	}
	return out, nil
}

// Purge deletes the user's own events f selects, through
// ctxhook_search.purge, which deletes only the login role's own rows
// whatever the filter says. An administrator purges anyone's with SQL
// (docs/team.md).
func (s *Store) Purge(f store.PurgeFilter, dryRun, _ bool) (store.Purged, error) {
	if f == (store.PurgeFilter{}) {
		return store.Purged{}, fmt.Errorf("pgstore: purge: say what to purge")
	}
	ctx, cancel := s.ctx()
	defer cancel()
	var p store.Purged
	err := s.conn.QueryRow(ctx, `SELECT * FROM ctxhook_search.purge($1::text, $2::text, $3::bigint, $4::bool)`,
		f.Session, f.Server, f.BeforeMS, dryRun).Scan(&p.Events, &p.Bytes)
	if err != nil {
		return p, fmt.Errorf("pgstore: purge: %w", err)
	}
	return p, nil
}

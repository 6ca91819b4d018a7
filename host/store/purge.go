package store

import (
	"fmt"
	"strings"
)

// PurgeFilter selects what Purge removes; the fields combine (AND). At
// least one must be set, or All.
type PurgeFilter struct {
	Session  string
	Server   string // events of this MCP server (transcript turns have none)
	BeforeMS int64  // captured before this time
	All      bool
}

func (f PurgeFilter) empty() bool {
	return f.Session == "" && f.Server == "" && f.BeforeMS == 0 && !f.All
}

// Purged says what Purge removed (or would remove, on a dry run).
type Purged struct {
	Events int64 `json:"events"`
	Turns  int64 `json:"turns"`
	Bytes  int64 `json:"bytes"`
}

// Purge deletes the events and transcript turns f selects, with their
// bodies' parts and full-text entries, in one transaction. Deleted
// content is overwritten (secure_delete) and the WAL is truncated
// afterwards, so what was purged is gone from the files, not only from
// the tables; VACUUM (vacuum) also returns the space. What it reports is
// what it deleted: the counts are the rows its deletes removed, and the
// bytes are summed inside the same transaction, so an event another
// writer adds before the delete is counted too.
func (s *Store) Purge(f PurgeFilter, dryRun, vacuum bool) (Purged, error) {
	if f.empty() {
		return Purged{}, fmt.Errorf("store: purge: say what to purge")
	}
	if dryRun {
		return s.purgeCount(f)
	}
	if purgeBegins != nil {
		purgeBegins()
	}
	if err := s.conn.Exec(`PRAGMA secure_delete=ON`); err != nil {
		return Purged{}, err
	}
	var p Purged
	err := s.tx(func() (err error) {
		if p, err = s.purgeCount(f); err != nil || p.Events+p.Turns == 0 {
			return err
		}
		p.Events, p.Turns, err = s.purgeDelete(f)
		return err
	})
	if err != nil {
		return p, fmt.Errorf("store: purge: %w", err)
	}
	if p.Events+p.Turns == 0 {
		return p, nil
	}
	return p, s.purgeScrub(vacuum)
}

// purgeCount counts what f selects and the bytes it holds.
func (s *Store) purgeCount(f PurgeFilter) (Purged, error) {
	var p Purged
	evWhere, evArgs := f.where(true)
	chWhere, chArgs := f.where(false)
	count := func(sql string, args []any) (n, b int64, err error) {
		st, _, err := s.conn.Prepare(sql)
		if err != nil {
			return 0, 0, err
		}
		defer st.Close()
		bindAll(st, args...)
		if st.Step() {
			n, b = st.ColumnInt64(0), st.ColumnInt64(1)
		}
		return n, b, st.Err()
	}
	var err error
	if p.Events, p.Bytes, err = count(`SELECT count(*), coalesce(sum(`+s.storedBytes()+`), 0) FROM events WHERE `+evWhere, evArgs); err != nil {
		return p, err
	}
	if chWhere != "" {
		var b int64
		if p.Turns, b, err = count(`SELECT count(*), coalesce(sum(length(CAST(text AS BLOB))), 0) FROM chunks WHERE `+chWhere, chArgs); err != nil {
			return p, err
		}
		p.Bytes += b
	}
	return p, nil
}

// purgeDelete deletes what f selects (inside the caller's transaction)
// and returns how many events and turns its deletes removed.
func (s *Store) purgeDelete(f PurgeFilter) (events, turns int64, err error) {
	evWhere, evArgs := f.where(true)
	chWhere, chArgs := f.where(false)
	exec := s.execArgs
	// Parts first: their index entries are found through them.
	for t, bit := range map[string]string{"event_parts_fts": "1", "event_parts_tri": "2"} {
		if err := exec(`DELETE FROM `+t+` WHERE rowid IN (SELECT id FROM event_parts
			WHERE indexed & `+bit+` AND event_id IN (SELECT id FROM events WHERE `+evWhere+`))`, evArgs); err != nil {
			return 0, 0, err
		}
	}
	if err := exec(`DELETE FROM event_parts WHERE event_id IN (SELECT id FROM events WHERE `+evWhere+`)`, evArgs); err != nil {
		return 0, 0, err
	}
	for _, t := range []string{"events_fts", "events_tri"} {
		if err := exec(`DELETE FROM `+t+` WHERE rowid IN (SELECT id FROM events WHERE `+evWhere+`)`, evArgs); err != nil {
			return 0, 0, err
		}
	}
	if err := exec(`DELETE FROM events WHERE `+evWhere, evArgs); err != nil {
		return 0, 0, err
	}
	events = s.conn.Changes()
	if chWhere != "" {
		for _, t := range []string{"chunks_fts", "chunks_tri"} {
			if err := exec(`DELETE FROM `+t+` WHERE rowid IN (SELECT id FROM chunks WHERE `+chWhere+`)`, chArgs); err != nil {
				return 0, 0, err
			}
		}
		if err := exec(`DELETE FROM chunks WHERE `+chWhere, chArgs); err != nil {
			return 0, 0, err
		}
		turns = s.conn.Changes()
	}
	if f.Session != "" && f.Server == "" && f.BeforeMS == 0 {
		err = exec(`DELETE FROM tallies WHERE session = ?`, []any{f.Session})
	} else if f.All {
		err = exec(`DELETE FROM tallies`, nil)
	}
	return events, turns, err
}

// purgeScrub leaves no trace of what was deleted in the files.
func (s *Store) purgeScrub(vacuum bool) error {
	// FTS5 keeps a deleted row's tokens in its segments until they merge:
	// rewrite them now, so no word of what was purged stays searchable on
	// disk.
	for _, t := range []string{"events_fts", "events_tri", "event_parts_fts", "event_parts_tri", "chunks_fts", "chunks_tri"} {
		if err := s.conn.Exec(`INSERT INTO ` + t + `(` + t + `) VALUES('optimize')`); err != nil {
			return fmt.Errorf("store: purge: %s: %w", t, err)
		}
	}
	// The old pages may still sit in the WAL: fold it in and empty it.
	if err := s.conn.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("store: purge: checkpoint: %w", err)
	}
	if vacuum {
		if err := s.conn.Exec(`VACUUM`); err != nil {
			return fmt.Errorf("store: purge: vacuum: %w", err)
		}
		// VACUUM writes the whole rewritten database through the WAL:
		// fold that in too, or the space comes back only as a WAL as
		// large as the database.
		if err := s.conn.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			return fmt.Errorf("store: purge: checkpoint after vacuum: %w", err)
		}
	}
	return nil
}

// purgeBegins, when set (tests), runs just before a purge's transaction:
// another writer may add what the filter selects then.
var purgeBegins func()

// where builds the condition for events (or, with events false, for
// transcript turns: "" when the filter cannot apply to them).
func (f PurgeFilter) where(events bool) (string, []any) {
	var conds []string
	var args []any
	if f.Session != "" {
		conds = append(conds, "session = ?")
		args = append(args, f.Session)
	}
	if f.Server != "" {
		if !events {
			return "", nil
		}
		conds = append(conds, "server = ?")
		args = append(args, f.Server)
	}
	if f.BeforeMS != 0 {
		conds = append(conds, "ts_ms < ?")
		args = append(args, f.BeforeMS)
	}
	if len(conds) == 0 {
		return "1", nil
	}
	return strings.Join(conds, " AND "), args
}

// execArgs runs one statement with its arguments bound.
func (s *Store) execArgs(sql string, args []any) error {
	st, _, err := s.conn.Prepare(sql)
	if err != nil {
		return err
	}
	defer st.Close()
	bindAll(st, args...)
	return st.Exec()
}

package store

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// Retention caps the store (0 or less: no cap).
type Retention struct {
	MaxEvents, MaxSessionEvents int
}

// RetentionFrom turns the config's caps into a Retention, defaults filled.
func RetentionFrom(c abi.RetentionConfig) Retention {
	r := Retention{MaxEvents: c.MaxEvents, MaxSessionEvents: c.MaxSessionEvents}
	if r.MaxEvents == 0 {
		r.MaxEvents = abi.DefaultMaxEvents
	}
	if r.MaxSessionEvents == 0 {
		r.MaxSessionEvents = abi.DefaultMaxSessionEvents
	}
	return r
}

// slack is how far below a cap a write that went over it evicts: one
// 256th of the cap (none below 256). Finding the least valuable events
// ranks every candidate, so a store at its cap would otherwise rank all
// of them on every write; with the slack it does once per cap/256 writes.
func slack(limit int) int64 { return int64(limit / 256) }

// holdCaps evicts, inside the write's transaction, what the events just
// written took over a cap: the sessions they belong to first, then the
// whole store. The counts come from event_counts and event_total (kept by
// triggers), so a write under its caps pays two lookups per session.
func (s *Store) holdCaps(events []abi.Event) error {
	r := s.retention
	if r.MaxSessionEvents > 0 {
		seen := map[string]bool{}
		for _, e := range events {
			if seen[e.Session] {
				continue
			}
			seen[e.Session] = true
			n, err := s.countOf(`SELECT n FROM event_counts WHERE session = ?`, e.Session)
			if err != nil {
				return err
			}
			if over := n - int64(r.MaxSessionEvents); over > 0 {
				if _, err := s.evict(`session = ?`, []any{e.Session}, over+slack(r.MaxSessionEvents)); err != nil {
					return err
				}
			}
		}
	}
	if r.MaxEvents > 0 {
		n, err := s.countOf(`SELECT n FROM event_total`)
		if err != nil {
			return err
		}
		if over := n - int64(r.MaxEvents); over > 0 {
			_, err = s.evict(`1`, nil, over+slack(r.MaxEvents))
			return err
		}
	}
	return nil
}

// countOf runs a query of one number (0 when it has no row).
func (s *Store) countOf(sql string, args ...any) (int64, error) {
	st, _, err := s.conn.Prepare(sql)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	bindAll(st, args...)
	var n int64
	if st.Step() {
		n = st.ColumnInt64(0)
	}
	return n, st.Err()
}

// rank orders events for eviction: abi.RetentionOrder's position of the
// category (unknown categories first), then age.
func rank() string {
	var b strings.Builder
	b.WriteString("CASE category")
	for i, c := range abi.RetentionOrder {
		fmt.Fprintf(&b, " WHEN '%s' THEN %d", c, i+1)
	}
	b.WriteString(" ELSE 0 END, id")
	return b.String()
}

// Enforce evicts events over the caps: in each session over its cap, then
// in the whole store, the least valuable category first and, within one,
// the oldest first. It returns how many went.
func (s *Store) Enforce(r Retention) (int64, error) {
	var evicted int64
	err := s.tx(func() error {
		if r.MaxSessionEvents > 0 {
			st, _, err := s.conn.Prepare(`SELECT session, count(*) FROM events GROUP BY session HAVING count(*) > ?`)
			if err != nil {
				return err
			}
			bindAll(st, int64(r.MaxSessionEvents))
			over := map[string]int64{}
			for st.Step() {
				over[st.ColumnText(0)] = st.ColumnInt64(1) - int64(r.MaxSessionEvents)
			}
			err = st.Err()
			st.Close()
			if err != nil {
				return err
			}
			for session, n := range over {
				m, err := s.evict(`session = ?`, []any{session}, n)
				if err != nil {
					return err
				}
				evicted += m
			}
		}
		if r.MaxEvents > 0 {
			st, _, err := s.conn.Prepare(`SELECT count(*) FROM events`)
			if err != nil {
				return err
			}
			var total int64
			if st.Step() {
				total = st.ColumnInt64(0)
			}
			st.Close()
			if n := total - int64(r.MaxEvents); n > 0 {
				m, err := s.evict(`1`, nil, n)
				if err != nil {
					return err
				}
				evicted += m
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: retention: %w", err)
	}
	return evicted, nil
}

// evict deletes the n lowest-ranked events matching where, with their
// parts and index entries.
func (s *Store) evict(where string, args []any, n int64) (int64, error) {
	sel := `SELECT id FROM events WHERE ` + where + ` ORDER BY ` + rank() + ` LIMIT ` + strconv.FormatInt(n, 10)
	if err := s.conn.Exec(`CREATE TEMP TABLE IF NOT EXISTS evict(id INTEGER PRIMARY KEY)`); err != nil {
		return 0, err
	}
	defer s.conn.Exec(`DELETE FROM temp.evict`)
	if err := s.execArgs(`INSERT INTO temp.evict `+sel, args); err != nil {
		return 0, err
	}
	for _, sql := range []string{
		`DELETE FROM event_parts_fts WHERE rowid IN (SELECT id FROM event_parts WHERE indexed & 1 AND event_id IN (SELECT id FROM temp.evict))`,
		`DELETE FROM event_parts_tri WHERE rowid IN (SELECT id FROM event_parts WHERE indexed & 2 AND event_id IN (SELECT id FROM temp.evict))`,
		`DELETE FROM event_parts WHERE event_id IN (SELECT id FROM temp.evict)`,
	} {
		if err := s.conn.Exec(sql); err != nil {
			return 0, err
		}
	}
	for _, t := range []string{"events_fts", "events_tri", "events"} {
		col := "rowid"
		if t == "events" {
			col = "id"
		}
		if err := s.conn.Exec(`DELETE FROM ` + t + ` WHERE ` + col + ` IN (SELECT id FROM temp.evict)`); err != nil {
			return 0, err
		}
	}
	return s.conn.Changes(), nil
}

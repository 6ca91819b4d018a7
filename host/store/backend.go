package store

import (
	"fmt"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// Backend is what every store answers, the embedded SQLite file (Store)
// and the shared PostgreSQL store (package pgstore) alike: one suite of
// tests (package storetest) runs against both, so search, get_event's
// pages, stats and purge mean the same on either.
type Backend interface {
	Apply(events []abi.Event, tallies []abi.Effect) ([]int64, error)
	SearchResult(q Query, o SearchOptions) (Result, error)
	Event(id int64) (Event, error)
	ReadBody(id int64, f Field, offset, length int64) (string, error)
	Stats(session string) (Stats, error)
	Purge(f PurgeFilter, dryRun, vacuum bool) (Purged, error)
	Close() error
}

var _ Backend = (*Store)(nil)

// EventsAfter returns up to limit events with ids above after, in id
// order, their bodies whole: what a shipper or `ctxhook store migrate`
// copies to another store, resuming from the last id it copied. Once
// their stored sizes pass maxBytes no more are taken (the first always
// is), so a run of big events is copied a few at a time, never all of
// them in memory at once.
func (s *Store) EventsAfter(after int64, limit int, maxBytes int64) ([]Event, error) {
	st, _, err := s.conn.Prepare(`SELECT ` + s.eventCols() + ` FROM events WHERE id > ? ORDER BY id LIMIT ?`)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	bindAll(st, after, int64(limit))
	var out []Event
	var total int64
	for st.Step() {
		e := scanEvent(st)
		if total += e.ResponseSize + e.TextSize; total > maxBytes && len(out) > 0 {
			break
		}
		out = append(out, e)
	}
	err = st.Err()
	st.Close()
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	for i := range out {
		if err := s.wholeBodies(&out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// wholeBodies replaces an event's heads by its whole bodies.
func (s *Store) wholeBodies(e *Event) error {
	if e.Whole() && e.ResponseForm == "" {
		return nil
	}
	for _, f := range []struct {
		field Field
		into  *string
	}{{FieldResponse, &e.Response}, {FieldText, &e.Text}} {
		var b strings.Builder
		if _, err := s.WriteBody(&b, e.ID, f.field); err != nil {
			return err
		}
		*f.into = b.String()
	}
	e.ResponseForm = "" // the response is now written out
	e.ResponseParts, e.TextParts = 0, 0
	e.ResponseSize, e.TextSize = int64(len(e.Response)), int64(len(e.Text))
	return nil
}

// PendingAfter counts the events with ids above after: what a shipper
// has yet to send.
func (s *Store) PendingAfter(after int64) (int64, error) {
	n, err := s.count(`SELECT count(*) FROM events WHERE id > ?`, []any{after})
	return int64(n), err
}

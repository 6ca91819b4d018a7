package pgstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// OwnEventsAfter returns up to limit of the user's own events with ids
// above after, in id order, bodies whole: what `ctxhook store migrate`
// copies back into a local file (a teammate's shared events stay theirs).
// Once their sizes pass maxBytes no more are read (the first always is).
func (s *Store) OwnEventsAfter(after int64, limit int, maxBytes int64) ([]store.Event, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	rows, err := s.conn.Query(ctx, `SELECT `+eventCols+` FROM ctxhook_search.own_events($1::bigint, $2::int)`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	defer rows.Close()
	var out []store.Event
	var total int64
	for rows.Next() {
		e, err := scanEvent(rows, false)
		if err != nil {
			return nil, fmt.Errorf("pgstore: %w", err)
		}
		e.ResponseParts, e.TextParts = 0, 0
		if total += int64(len(e.Response) + len(e.Text)); total > maxBytes && len(out) > 0 {
			break
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// MigrateTally names the tally that holds, in a local store migrated
// back from the shared one, the highest shared id copied: it is written
// in the same transaction as the events, so a migration run again (or
// resumed after an interruption) copies each event once.
func MigrateTally(where string) string { return "migrated-from:" + where }

// MigrateSession is the session the cursor tally is kept under.
const MigrateSession = "ctxhook-migrate"

// CopyOut copies the user's own events into local, resuming after the
// shared id the local store's cursor tally holds, and tells progress
// after each batch (copied so far, the cursor).
func (s *Store) CopyOut(ctx context.Context, local *store.Store, where string, progress func(copied, cursor int64)) (int64, error) {
	st, err := local.Stats("")
	if err != nil {
		return 0, err
	}
	name := MigrateTally(where)
	cursor, copied := st.Tallies[name], int64(0)
	for ctx.Err() == nil {
		events, err := s.OwnEventsAfter(cursor, ShipBatch, ShipBatchBytes)
		if err != nil || len(events) == 0 {
			return copied, err
		}
		plain := make([]abi.Event, len(events))
		for i, e := range events {
			plain[i] = e.Event
		}
		last := events[len(events)-1].ID
		advance := abi.Effect{Op: abi.OpTally, Session: MigrateSession, Name: name, Count: int(last - cursor)}
		batch := store.Batch{Name: name + ":" + strconv.FormatInt(last, 10)}
		if _, err := local.ApplyOnce(batch, plain, []abi.Effect{advance}); err != nil {
			return copied, err
		}
		copied += int64(len(events))
		cursor = last
		if progress != nil {
			progress(copied, cursor)
		}
	}
	return copied, ctx.Err()
}

package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/jackc/pgx/v5"
)

// ShipBatch is how many events one shipping transaction carries, and
// ShipBatchBytes about how many bytes of bodies (one event may be more):
// a batch is held in memory whole, and a big one must not make each try
// run out its time and be tried again for ever.
var (
	ShipBatch            = 200
	ShipBatchBytes int64 = 16 << 20
)

// Shipped says what one Ship moved.
type Shipped struct {
	Events  int64 // new in the database
	Skipped int64 // there already (a retry after a commit whose answer was lost)
	Bytes   int64 // of the events sent
	Pending int64 // left in the local store, not yet sent
}

// Cursor is the highest local id of this machine's events the database
// holds: where shipping resumes. It lives in the database, written in the
// same transaction as the events, so no crash between the two can send
// an event twice or skip one.
func (s *Store) Cursor() (int64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	var c int64
	err := s.conn.QueryRow(ctx, `SELECT ctxhook_search.cursor($1::text)`, s.opts.Machine).Scan(&c)
	if err != nil {
		return 0, fmt.Errorf("pgstore: %w", err)
	}
	return c, nil
}

// Ship sends the events of local the database lacks, in batches, until
// none is left, ctx ends or a batch fails (what was committed stays
// committed). progress, when not nil, is told after each batch.
func (s *Store) Ship(ctx context.Context, local *store.Store, progress func(Shipped)) (Shipped, error) {
	var out Shipped
	cursor, err := s.Cursor()
	if err != nil {
		return out, err
	}
	for ctx.Err() == nil {
		events, err := local.EventsAfter(cursor, ShipBatch, ShipBatchBytes)
		if err != nil {
			return out, err
		}
		if len(events) == 0 {
			break
		}
		n, skipped, bytes, err := s.shipBatch(ctx, events)
		if err != nil {
			return out, err
		}
		out.Events, out.Skipped, out.Bytes = out.Events+n, out.Skipped+skipped, out.Bytes+bytes
		cursor = events[len(events)-1].ID
		if progress != nil {
			out.Pending, _ = local.PendingAfter(cursor)
			progress(out)
		}
	}
	out.Pending, err = local.PendingAfter(cursor)
	return out, err
}

// batchTimeout is how long one batch may take: the connection's timeout,
// 50 ms an event, and a second a MiB (the database indexes every word),
// so that a batch of big events is not cut off on each try.
func batchTimeout(base time.Duration, events []store.Event) time.Duration {
	var size int
	for _, e := range events {
		size += len(e.Response) + len(e.Text) + len(e.Args)
	}
	return base + time.Duration(len(events))*50*time.Millisecond + time.Duration(size>>20)*time.Second
}

// shipBatch inserts events in one transaction and one round trip, each
// under its local id.
func (s *Store) shipBatch(ctx context.Context, events []store.Event) (n, skipped, bytes int64, err error) {
	ctx, cancel := context.WithTimeout(ctx, batchTimeout(s.opts.Timeout, events))
	defer cancel()
	err = pgx.BeginFunc(ctx, s.conn, func(tx pgx.Tx) error {
		n, skipped, bytes = 0, 0, 0
		b := &pgx.Batch{}
		for _, e := range events {
			id := e.ID
			b.Queue(insertSQL, s.insertArgs(e.Event, &id)...)
			bytes += int64(len(e.Response) + len(e.Text) + len(e.Args))
		}
		res := tx.SendBatch(ctx, b)
		for range events {
			var id int64
			switch err := res.QueryRow().Scan(&id); err {
			case nil:
				n++
			case pgx.ErrNoRows:
				skipped++
			default:
				res.Close()
				return err
			}
		}
		return res.Close()
	})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("pgstore: ship: %w", scrub(err))
	}
	return n, skipped, bytes, nil
}

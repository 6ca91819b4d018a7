package mcpserver

import (
	"fmt"
	"sync"
	"time"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/modeltext"
)

// Shared is the shared store (package pgstore) as the tools read it: the
// user's own events from every machine and the events teammates shared,
// as row-level security lets the user's database role see them. The
// server never writes to it: the daemon's shipper does.
type Shared interface {
	SearchResult(q store.Query, o store.SearchOptions) (store.Result, error)
	Event(id int64) (store.Event, error)
	EventByRef(ref string) (store.Event, error)
	Around(id int64, before, after int) ([]store.Event, error)
	ReadBody(id int64, f store.Field, offset, length int64) (string, error)
	// Machine is this machine's name in the shared store: its own events
	// there are the local store's, and search leaves them out.
	Machine() string
	Close() error
}

// sharedRetry is how long the server waits after the shared store failed
// before it tries to reach it again: an unreachable database costs one
// connection timeout per half minute, not one per tool call.
const sharedRetry = 30 * time.Second

// sharedConn keeps one connection to the shared store, opened on first
// use and again after a failure. Tool calls are one at a time (stMu).
type sharedConn struct {
	open     func() (Shared, error)
	mu       sync.Mutex
	conn     Shared
	failedAt time.Time
	err      error
}

// get returns the connection; nil and why when the store cannot be
// reached now.
func (c *sharedConn) get(now time.Time) (Shared, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		return c.conn, nil
	}
	if c.err != nil && now.Sub(c.failedAt) < sharedRetry {
		return nil, c.err
	}
	conn, err := c.open()
	if err != nil {
		c.err, c.failedAt = err, now
		return nil, err
	}
	c.conn, c.err = conn, nil
	return conn, nil
}

// failed drops the connection after a read through it failed: the next
// call opens a new one, after sharedRetry.
func (c *sharedConn) failed(err error, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
	c.err, c.failedAt = err, now
}

func (c *sharedConn) close() {
	c.failed(nil, time.Time{})
}

// sharedRef reads a shared-store reference, "s" and the event's id there.
func sharedRef(ref string) (int64, bool) { return prefixedID(ref, "s") }

// unreachable is the warning an answer carries when a shared store is
// configured and could not be read: the answer is this machine's only.
func unreachable(err error) Warning {
	return Warning{"SHARED_UNREACHABLE", "the shared store cannot be reached (" + modeltext.Escape(err.Error(), 300) +
		"): this answer holds this machine's events only", "warning"}
}

// shared returns the shared store's connection, or nil: none is
// configured (no warning), or it cannot be reached (out gets the
// warning).
func (s *Server) shared(warn *[]Warning) Shared {
	if s.sh == nil {
		return nil
	}
	sh, err := s.sh.get(s.opts.Now())
	if err != nil {
		*warn = append(*warn, unreachable(err))
		return nil
	}
	return sh
}

// searchShared adds to out the hits of the shared store that are not
// this machine's own (those the local store answered): the user's events
// from other machines and the team's, refs "s<id>". The two lists are
// merged by how many of the query's terms a hit holds, then each in its
// own order, so neither store's ranking is overturned by the other's
// scale. It returns the results' total and the terms neither store holds.
func (s *Server) searchShared(q store.Query, opts store.SearchOptions, local store.Result, out *SearchOut) (int, []string) {
	sh := s.shared(&out.Meta.Warnings)
	if sh == nil {
		return 0, local.Unmatched
	}
	opts.NotFromMachine = sh.Machine()
	res, err := sh.SearchResult(q, opts)
	if err != nil {
		s.sh.failed(err, s.opts.Now())
		out.Meta.Warnings = append(out.Meta.Warnings, unreachable(err))
		return 0, local.Unmatched
	}
	var remote []Hit
	for _, h := range res.Hits {
		remote = append(remote, hitOf(h, "shared", "s"))
	}
	out.Results = mergeHits(out.Results, remote)
	return res.Total, both(local.Unmatched, res.Unmatched)
}

// mergeHits merges two ranked lists: the hit missing fewer terms first,
// on a tie the better placed in its own list, on a tie the local one.
func mergeHits(local, remote []Hit) []Hit {
	out := make([]Hit, 0, len(local)+len(remote))
	i, j := 0, 0
	for i < len(local) || j < len(remote) {
		takeLocal := j == len(remote) || i < len(local) &&
			(len(local[i].Missing) < len(remote[j].Missing) || len(local[i].Missing) == len(remote[j].Missing) && i <= j)
		if takeLocal {
			out = append(out, local[i])
			i++
		} else {
			out = append(out, remote[j])
			j++
		}
	}
	return out
}

// both is the terms in a and in b.
func both(a, b []string) []string {
	in := map[string]bool{}
	for _, t := range b {
		in[t] = true
	}
	var out []string
	for _, t := range a {
		if in[t] {
			out = append(out, t)
		}
	}
	return out
}

// sharedEvent finds an event of the shared store by its ref ("s<id>") or
// key; a key's event is looked for there only when the local store has
// none.
func (s *Server) sharedEvent(ref string, warn *[]Warning) (store.Event, Shared, error) {
	sh := s.shared(warn)
	if sh == nil {
		if s.sh == nil {
			return store.Event{}, nil, fmt.Errorf("no event %s: no shared store is configured ([store] url)", ref)
		}
		return store.Event{}, nil, fmt.Errorf("no event %s: the shared store cannot be reached now; try again later", ref)
	}
	var e store.Event
	var err error
	if id, ok := sharedRef(ref); ok {
		e, err = sh.Event(id)
	} else {
		e, err = sh.EventByRef(ref)
	}
	if err != nil && !isNotFound(err) {
		s.sh.failed(err, s.opts.Now())
	}
	return e, sh, err
}

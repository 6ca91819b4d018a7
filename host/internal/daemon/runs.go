package daemon

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/engine"
)

// A run's state: queued for an instance, begun on one, or dropped by
// serve at the hook's deadline before it began (the client hands the
// payload on, and the process it hands it to asks again).
const (
	queued int32 = iota
	begun
	dropped
)

// run is one hook being decided by the daemon.
type run struct {
	id    string
	state atomic.Int32
	// claim is shared with the engine (engine.Request.Answered).
	claim atomic.Int32
	// done is closed when answer and ok are set.
	done   chan struct{}
	answer engine.Answer
	ok     bool
}

// runs are the hooks being decided, by request id, so that a hook asked
// again while it runs (handed on at its deadline, or resent by a client
// whose kept connection broke) is decided once: the later request waits
// for the earlier run's answer. A big payload decided twice would cost
// twice the time under load, and a second run would move the session's
// state (the nudge counter) twice.
type runs struct {
	mu sync.Mutex
	m  map[string]*run
}

// start returns the run of request id already under way (joined), or a
// new one, registered under id unless id is empty.
func (rs *runs) start(id string) (r *run, joined bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r := rs.m[id]; r != nil && id != "" {
		return r, true
	}
	r = &run{id: id, done: make(chan struct{})}
	if id != "" {
		rs.m[id] = r
	}
	return r, false
}

// lateKeep is how long a run whose answer nobody took (answered without
// a decision at its deadline) stays registered after it ends.
const lateKeep = 2 * time.Minute

// finish records a run's answer and ends it. A run decided past its
// deadline stays registered for lateKeep: the request asked again under
// its id (the proxy's, to finish a decision it pointed at) gets this
// answer rather than a second run storing its events twice.
func (rs *runs) finish(r *run, a engine.Answer, ok bool) {
	r.answer, r.ok = a, ok
	if ok && r.claim.Load() == 1 && r.id != "" {
		time.AfterFunc(lateKeep, func() { rs.forget(r) })
	} else {
		rs.forget(r)
	}
	close(r.done)
}

// forget unregisters r: a request of the same id from now on starts a
// run of its own (r was dropped before it began, or has ended).
func (rs *runs) forget(r *run) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r.id != "" && rs.m[r.id] == r {
		delete(rs.m, r.id)
	}
}

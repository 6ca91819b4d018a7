package engine

import (
	"sync/atomic"

	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/store"
)

// Sink is where an engine's effects go. It is one value, chosen by the
// host that makes the engine, because where a decision's events may be
// written follows from who waits for the answer and who stores after it.
type Sink int

const (
	// Store writes events and tallies into the store during the call, the
	// store opened for it (a hook process, ctxhook io, the demo). A big
	// batch is spooled instead and stored after the answer went out
	// (Result.StoreLater): inserting 64 MiB takes seconds the agent should
	// not wait.
	Store Sink = iota
	// Unanswered is Store for a hook whose answer reaches nobody (one
	// finished after its process answered the agent): everything is stored
	// at once, and tallies of what the model was given
	// (abi.Effect.IfDelivered) are not counted.
	Unanswered
	// KeptStore stores during the call into a store kept open across
	// calls, with the config and state directory kept too (a long-lived
	// host that writes itself: the retrieval bench).
	KeptStore
	// Spool hands events to the spool (a file write, no fsync) for a
	// writer that stores them after the answer went out (the daemon, the
	// proxy's in-process engine: see spool.ReplayAll); the config and state
	// directory are kept across calls. The spool file survives the host's
	// death, so nothing acknowledged is lost.
	Spool
)

// longLived reports whether the engine keeps what it opened across calls.
func (s Sink) longLived() bool { return s == KeptStore || s == Spool }

// Request is one call's own inputs: a long-lived host (the daemon, the
// proxy) passes each request's to Engine.DoIn.
type Request struct {
	Getenv func(string) string
	// Environ is the hook's whole environment (nil: os.Environ): the
	// plugin redacts the values of its sensitive variables.
	Environ func() []string
	// ID names the hook's batch of events (store.Batch), or is "": the
	// hook client gives every hook an id and keeps it when it re-runs a
	// hook in-process that its daemon took and did not answer, so the
	// events are stored once whichever run stores them first.
	ID string
	// Answered, when set, is shared with a caller that may answer the
	// agent before this call decides (the daemon, at the hook's
	// deadline). apply claims it (0 to 2) before it counts what the model
	// is given; a caller that claimed it first (0 to 1) answered without
	// this call's answer, which then reaches nobody (as Unanswered).
	Answered *atomic.Int32
}

// getenv reads the request's environment.
func (r Request) getenv(k string) string {
	if r.Getenv != nil {
		return r.Getenv(k)
	}
	return ""
}

// batch names the request's batch of events (store.Batch).
func (r Request) batch() string {
	if r.ID != "" {
		return "req:" + r.ID
	}
	return ""
}

// OpenStore opens the store with the user's retention caps (a bad config
// still has the default caps): the store and the spool's writer take
// their limits from their caller, and this is the caller's reading.
func OpenStore(p paths.Paths) (*store.Store, error) {
	cfg, _ := config.Load(p.Config)
	return store.Open(p.DB(), store.Options{Retention: store.RetentionFrom(cfg.Retention)})
}

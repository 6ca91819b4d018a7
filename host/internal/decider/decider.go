// Package decider gets the plugin's decisions for a long-lived process
// that decides many payloads (the proxy, ctxhook's MCP server for hooks
// that call a tool): from the daemon first, else in-process with an
// interruptible instance that is replaced whenever it fails.
package decider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/childenv"
	"github.com/ctxhook/ctxhook/host/internal/daemon"
	"github.com/ctxhook/ctxhook/host/internal/engine"
	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/testhooks"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/spool"
)

// Decider gets the plugin's decisions, one payload at a time.
//
// It asks the daemon first: the daemon runs the plugin compiled without
// cancellation checks (several times faster per call) under a kernel
// watchdog that ends the daemon if a call never returns. A stuck call
// there costs one payload, and the daemon is started again; in the
// caller's own process the same stuck call would freeze it at its next
// garbage collection (the proxy would cut the agent off from its server;
// RATIONALE.md: "How does the proxy decide?"). When no daemon answers,
// it decides in-process with an interruptible instance, which it
// replaces whenever it fails: one failure touches one payload.
type Decider struct {
	getenv  func(string) string
	paths   paths.Paths
	environ []string
	useD    bool // ask the daemon (CTXHOOK_NO_DAEMON unset)
	daemon  *daemon.Client
	// Each payload is named this Decider's own id and a number: a name
	// shared with another process (one proxy --session given to two)
	// would have the daemon answer one's payload with the other's run,
	// and the store keep one of their events.
	self string
	seq  atomic.Uint64

	dmu       sync.Mutex
	downUntil time.Time // the daemon did not answer: decide in-process until then
	busyUntil time.Time // the daemon finishes a late decision: in-process until then
	spawned   time.Time
	closed    bool           // Close has begun: nothing more is spawned
	spawning  sync.WaitGroup // a spawn under way, which Close waits for

	mu         sync.Mutex // one in-process decision at a time
	compiled   *runner.Compiled
	local      *engine.Engine
	localCalls int // decisions of local so far
	kick       chan struct{}
	stop       context.CancelFunc
	writer     chan struct{}
	warn       func(kind, format string, a ...any)
}

// New makes a Decider and starts making the plugin ready in the
// background. warn reports a problem once per kind.
func New(getenv func(string) string, p paths.Paths, warn func(kind, format string, a ...any)) *Decider {
	d := &Decider{getenv: getenv, paths: p, environ: childenv.Of(getenv), useD: getenv("CTXHOOK_NO_DAEMON") == "", warn: warn,
		daemon: &daemon.Client{Paths: p}, self: hookproto.RequestID()}
	// The plugin is made ready in the background: the server starts at
	// once and initialize, tools/list and the rest flow meanwhile; only a
	// tools/call waits for a decision.
	go func() {
		if d.useD {
			if !d.daemon.Connect(time.Second) {
				d.spawn()
			}
			return
		}
		d.mu.Lock()
		d.ensureLocal(context.Background(), true)
		d.mu.Unlock()
	}()
	return d
}

// Decide asks for the decision on one payload of harness: the answer's
// stdout. An error means no decision was made: the caller must not read
// an empty stdout as "no change" then. The daemon gets 3 s and a second
// more per 4 MiB; then the payload is decided in-process.
func (d *Decider) Decide(ctx context.Context, harness, event string, payload []byte) (string, error) {
	return d.decide(ctx, d.NewID(), harness, event, payload, ask{wait: 3*time.Second + time.Duration(len(payload)/(4<<20))*time.Second})
}

// NewID names one payload: this Decider's own id and a number. The
// plugin names the events a decision records after it (their keys).
func (d *Decider) NewID() string {
	return d.self + "-" + strconv.FormatUint(d.seq.Add(1), 10)
}

// ErrLate is the daemon's answer at a decision's deadline: it finishes
// a decision it has begun in the background (its events stored, its
// state saved), and nobody gets its stdout.
var ErrLate = errors.New(hookproto.NoDecision)

// DecideWithin is Decide for a payload named id (NewID) that the daemon
// must answer within deadline (see Deadline), with ErrLate if it has no
// decision by then. In-process (no daemon) it runs to its end.
func (d *Decider) DecideWithin(ctx context.Context, id, harness, event string, payload []byte, deadline time.Duration) (string, error) {
	return d.decide(ctx, id, harness, event, payload, ask{deadline: deadline, wait: deadline + 2*time.Second})
}

// DecideHere decides a payload named id in-process.
func (d *Decider) DecideHere(ctx context.Context, id, harness, event string, payload []byte) (string, error) {
	return d.decideLocal(ctx, harness, event, payload, id)
}

// ask is how a decision is asked of the daemon: the deadline it is sent
// (0: the daemon's own) and how long the answer is waited for.
type ask struct {
	deadline, wait time.Duration
}

func (d *Decider) decide(ctx context.Context, id, harness, event string, payload []byte, o ask) (string, error) {
	if d.useD && d.daemonUp() {
		d.awaitSpawned()
		a, err := d.daemon.Ask(d.request(id, harness, event, payload, o.deadline), o.wait)
		if err == nil {
			switch a.Failed {
			case "":
				return a.Text, nil
			case hookproto.NoDecision:
				d.busyFor(o.deadline)
				return "", ErrLate
			}
			return "", errors.New(a.Failed)
		}
		d.daemonDown()
	}
	return d.decideLocal(ctx, harness, event, payload, id)
}

// request is a payload named id as the daemon is asked it, answered
// within deadline (0: this process's hook budget, hookproto.Hook).
func (d *Decider) request(id, harness, event string, payload []byte, deadline time.Duration) hookproto.Request {
	if deadline == 0 {
		deadline = hookproto.Hook(envOf(d.environ))
	}
	return hookproto.Request{Harness: harness, Event: event, ID: id, Deadline: deadline,
		Environ: hookproto.PluginEnviron(harness, event, d.environ), Payload: payload}
}

// envOf reads a variable of environ (the last entry of a name wins, as
// in a process's environment).
func envOf(environ []string) func(string) string {
	return func(k string) string {
		v := ""
		for _, kv := range environ {
			if name, val, ok := strings.Cut(kv, "="); ok && name == k {
				v = val
			}
		}
		return v
	}
}

// finishTries bounds how often Finish asks the daemon again while it
// answers late (each time within MaxDeadline).
const finishTries = 3

// Finish sees through to its end a decision on a payload named id that
// the daemon answered late (ErrLate), so that the events it records,
// which the caller has already pointed at, are stored exactly once. The
// daemon keys runs by request id: asked again under id, it joins a run
// still under way (or kept, just ended), or decides once one it dropped
// while it was queued. A daemon that does not answer at all (ended by
// its watchdog, say) ran nothing to the end: the payload is decided
// in-process under id. One that stays late is left to finish alone.
func (d *Decider) Finish(ctx context.Context, id, harness, event string, payload []byte) error {
	for try := 0; d.useD && try < finishTries; try++ {
		a, err := d.daemon.Ask(d.request(id, harness, event, payload, MaxDeadline), MaxDeadline+2*time.Second)
		switch {
		case err != nil:
			d.daemonDown()
			_, err := d.decideLocal(ctx, harness, event, payload, id)
			return err
		case a.Failed == hookproto.NoDecision:
			continue
		case a.Failed != "":
			return errors.New(a.Failed)
		}
		return nil
	}
	if !d.useD {
		return nil // in-process decisions run to their end
	}
	return ErrLate
}

// Deadline is how long the daemon may take to decide on a payload of n
// bytes: a hook's budget (base: CTXHOOK_HOOK_DEADLINE_MS, default 10 s),
// and a second more per 4 MiB (the floor of 4 MB/s the daemon's
// watchdog allows a big payload, so that a decision it is still making
// is not a stuck one), never more than MaxDeadline. A 64 MiB result
// gets 26 s: on a quiet machine the plugin takes about 2 s of that.
func Deadline(base time.Duration, n int) time.Duration {
	return min(base+time.Duration(n/(4<<20))*time.Second, MaxDeadline)
}

// MaxDeadline caps Deadline (a payload is at most hookproto.MaxInput,
// which gets 42 s).
const MaxDeadline = time.Minute

// recycleCalls is how many decisions an in-process instance makes before
// it is replaced (the daemon's default too).
const recycleCalls = 1000

// spawnWait bounds how long a decision waits for a daemon this proxy
// started to open its socket.
const spawnWait = 2 * time.Second

// awaitSpawned waits for the socket of a daemon this proxy started
// moments ago, which is loading the plugin: loading it here as well, on
// the same cores, made the first tools/call after install wait for both
// (and three proxies started together for four loads).
func (d *Decider) awaitSpawned() {
	d.dmu.Lock()
	since := d.spawned
	d.dmu.Unlock()
	if since.IsZero() {
		return
	}
	// The daemon's socket is new: one found older is a killed daemon's.
	for until := since.Add(spawnWait); time.Now().Before(until); time.Sleep(5 * time.Millisecond) {
		if fi, err := os.Lstat(d.paths.Socket()); err == nil && !fi.ModTime().Before(since.Truncate(time.Second)) {
			return
		}
	}
	// A cold start: the daemon compiles the plugin (seconds, more on a
	// busy machine). Compiling the interruptible build here as well would
	// be a second compilation on the same cores, slowing both; a
	// tools/call can wait that long, and the daemon answers it sooner.
	if !runner.Ready(d.paths.WasmCache(), nil, true) {
		d.daemon.AwaitStart(time.Now().Add(coldWait))
	}
}

// coldWait bounds how long a decision waits for a daemon compiling the
// plugin before it compiles the plugin in-process after all.
const coldWait = time.Minute

func (d *Decider) daemonUp() bool {
	d.dmu.Lock()
	defer d.dmu.Unlock()
	return time.Now().After(d.downUntil) && time.Now().After(d.busyUntil)
}

// busyFor notes a decision the daemon answered late: it goes on with it
// (its events stored, its state saved) for about as long again at most,
// on its one instance, so decisions are made in-process meanwhile: the
// next tools/call must not queue behind a 64 MiB result to get its token.
func (d *Decider) busyFor(deadline time.Duration) {
	d.dmu.Lock()
	defer d.dmu.Unlock()
	d.busyUntil = time.Now().Add(deadline)
}

// daemonDown notes a daemon that did not answer: it is started again (at
// most every ten seconds) and the next two seconds are decided in-process.
func (d *Decider) daemonDown() {
	d.dmu.Lock()
	d.downUntil = time.Now().Add(2 * time.Second)
	d.dmu.Unlock()
	d.spawn()
}

func (d *Decider) spawn() {
	d.dmu.Lock()
	if d.closed || time.Since(d.spawned) < 10*time.Second {
		d.dmu.Unlock()
		return
	}
	d.spawned = time.Now()
	d.spawning.Add(1)
	d.dmu.Unlock()
	defer d.spawning.Done()
	if bin, err := os.Executable(); err == nil {
		daemon.Spawn(bin, d.environ)
	}
}

// decideLocal decides in-process, replacing an instance that failed.
func (d *Decider) decideLocal(ctx context.Context, harness, event string, payload []byte, id string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.ensureLocal(ctx, false); err != nil {
		return "", err
	}
	res, err := d.local.DoIn(ctx, engine.Request{Getenv: d.getenv, ID: id}, harness, event, payload)
	for _, w := range res.Warnings {
		d.warn(w, "%s", w)
	}
	if b := d.local.Broken(); b != nil {
		d.warn("replaced", "plugin instance replaced after: %v", b)
		d.local.Close(context.Background())
		d.local = nil
	} else if d.localCalls++; d.local.MemoryBytes() > 64<<20 || d.localCalls >= recycleCalls {
		// One big result: its memory back now. Every recycleCalls calls
		// in any case, as the daemon does: what a guest or its runtime
		// keeps between calls can never grow without bound.
		d.local.Close(context.Background())
		d.local = nil
	}
	select {
	case d.kick <- struct{}{}:
	default:
	}
	if err != nil {
		return "", err
	}
	return res.Answer, nil
}

// ensureLocal loads the in-process instance (compiling once, then
// instantiating), and starts its writer: its events are spooled, so an
// answer never waits for SQLite. An instance made ahead of its first
// message (warm) is warmed too; one made for the message waiting now is
// not, since warming costs that message more than it saves it.
func (d *Decider) ensureLocal(ctx context.Context, warm bool) error {
	if d.local != nil {
		return nil
	}
	if d.compiled == nil {
		o := runner.Options{CacheDir: d.paths.WasmCache()}
		// A replacement plugin, in a ctxhook_testhooks build only.
		w, err := testhooks.PluginWasm(d.getenv)
		if err != nil {
			return err
		}
		o.Wasm = w
		c, err := runner.Compile(ctx, o)
		if err != nil {
			return fmt.Errorf("plugin unavailable: %w", err)
		}
		d.compiled = c
		wctx, stop := context.WithCancel(context.Background())
		d.kick, d.stop, d.writer = make(chan struct{}, 1), stop, make(chan struct{})
		go func() {
			defer close(d.writer)
			spool.Writer(wctx, d.paths, func() (*store.Store, error) { return engine.OpenStore(d.paths) }, func(s string) { d.warn("writer:"+s, "%s", s) }, d.kick)
		}()
	}
	r, err := d.compiled.Instance(ctx)
	if err != nil {
		return fmt.Errorf("plugin unavailable: %w", err)
	}
	if warm {
		if err := r.Warm(ctx); err != nil {
			r.Close(ctx)
			return fmt.Errorf("plugin unavailable: %w", err)
		}
	}
	d.local, d.localCalls = engine.NewEngineOn(d.paths, d.getenv, r, engine.Spool), 0
	return nil
}

// Close stores what the in-process engine spooled and unloads it.
func (d *Decider) Close() {
	// The background start (New) may still be about to spawn a daemon:
	// once Close returns, none is started on this Decider's behalf, so a
	// caller that ends the daemons it started finds them all.
	d.dmu.Lock()
	d.closed = true
	d.dmu.Unlock()
	d.spawning.Wait()
	d.daemon.Close()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.local != nil {
		d.local.Close(context.Background())
		d.local = nil
	}
	if d.stop != nil {
		d.stop()
		<-d.writer
	}
	if d.compiled != nil {
		d.compiled.Close(context.Background())
	}
}

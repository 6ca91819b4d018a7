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
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/daemon"
	"github.com/ctxhook/ctxhook/host/internal/engine"
	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/paths"
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
	spawned   time.Time

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
	d := &Decider{getenv: getenv, paths: p, environ: os.Environ(), useD: getenv("CTXHOOK_NO_DAEMON") == "", warn: warn,
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
// an empty stdout as "no change" then.
func (d *Decider) Decide(ctx context.Context, harness, event string, payload []byte) (string, error) {
	id := d.self + "-" + strconv.FormatUint(d.seq.Add(1), 10)
	if d.useD && d.daemonUp() {
		d.awaitSpawned()
		env := append(d.environ[:len(d.environ):len(d.environ)], hookproto.EnvRequestID+"="+id)
		wait := 3*time.Second + time.Duration(len(payload)/(4<<20))*time.Second
		a, err := d.daemon.Ask(harness, event, env, payload, wait)
		if err == nil {
			if a.Failed != "" {
				return "", errors.New(a.Failed)
			}
			return a.Text, nil
		}
		d.daemonDown()
	}
	return d.decideLocal(ctx, harness, event, payload, id)
}

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
	return time.Now().After(d.downUntil)
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
	if time.Since(d.spawned) < 10*time.Second {
		d.dmu.Unlock()
		return
	}
	d.spawned = time.Now()
	d.dmu.Unlock()
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
		if f := d.getenv(engine.EnvTestPlugin); f != "" {
			w, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			o.Wasm = w
		}
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

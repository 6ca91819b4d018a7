// Package daemon is `ctxhook daemon`: one long-lived process per user
// that keeps initialised plugin instances, the config and the open store,
// so a hook costs a socket round trip instead of loading plugin.wasm.
// Decisions still run only in plugin.wasm, through the same engine.Engine
// the in-process path uses.
//
// The hook client (ctxhook-hook) talks to it over a Unix socket with
// wire frames. Request: build id, harness, event, request id, deadline
// (milliseconds left), late ("1" or ""), the entries of the client's
// environment the plugin reads (KEY=VALUE, NUL-separated:
// hookproto.PluginEnviron), payload (hookproto.Request). Answer: status ("ok"
// or "mismatch"), exit code, stdout, stderr, and the error that left no
// decision ("" when there is one: the proxy must tell a failure from "no
// change"). A request over its bounds, or one that finds no room among
// the bytes in flight (memory.go), is answered "refused" before it is
// read further; the client then decides in-process.
package daemon

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/engine"
	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/memtrim"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/spool"
)

// BuildID names this build for the handshake (see hookproto.ID); the
// daemon of an older build exits when a newer client reaches it.
func BuildID() string { return hookproto.ID() }

// Options configure a daemon.
type Options struct {
	Paths  paths.Paths
	Getenv func(string) string
	// Idle: exit after this long without a request (default 10 min).
	Idle time.Duration
	// Instances is how many plugin instances serve in parallel (default
	// 1). Each holds about 10 MB of guest memory; a decision takes about
	// 2 ms, and with one instance 8 hooks at once still answered within
	// 70 ms p99 on two cores (a second one bought nothing measurable).
	Instances int
	// Recycle replaces an instance after this many calls (default 1,000),
	// so what a guest or its runtime keeps can never grow without bound.
	Recycle int
	// RecycleBytes replaces an instance whose memory grew past this
	// (default 128 MiB): wasm memory never shrinks, so one very big
	// payload would otherwise pin its high-water mark for a thousand
	// calls, and the next big payload would grow it further (at 256 MiB a
	// flood of 64 and 128 MiB payloads took the daemon to 600-685 MB; at
	// 128 MiB, 441 MB). Below it an instance is kept: a fresh one pays for its
	// memory again, page by page, on the next big payload. An instance
	// that grew past IdleBytes is replaced when the daemon has been idle
	// for IdleTrim.
	RecycleBytes int64
	IdleBytes    int64
	IdleTrim     time.Duration
	// BuildID overrides BuildID() (tests of the mismatch path).
	BuildID string
	// Log receives one line per notable thing (default: nowhere).
	Log func(string)
	// Watchdog ends the daemon when one call runs longer (default
	// engine.DefaultDeadline).
	Watchdog time.Duration
	// Plugin replaces the embedded plugin.wasm (fault tests).
	Plugin []byte
	// LargeInFlight bounds the bytes of large fields (payloads) read and
	// not yet decided, across connections (default LargeInFlight; fault
	// tests make it small to see requests refused).
	LargeInFlight int64
	// Delay holds every request this long before handling it: fault tests
	// use it to kill or outwait a daemon mid-call.
	Delay time.Duration

	runs *runs
	mem  *memory
	// decides are the decisions running, which a connection may have
	// left (a late one, or one whose client went away): Run waits for
	// them before it stops the writer and closes the pool they return
	// their instance to.
	decides *sync.WaitGroup
}

// ErrRunning is returned when another daemon already holds the lock.
var ErrRunning = errors.New("daemon: already running")

// Run serves until idle, ctx ends, or a client of another build retires it.
func Run(ctx context.Context, o Options) error {
	o = o.withDefaults()
	sock := o.Paths.Socket()
	lock, err := lockDaemon(o)
	if err != nil {
		return err
	}
	defer lock.Close()
	// One compiled module for every instance: the code once in memory, and
	// a recycled instance costs an instantiation. Compiled without
	// cancellation checks (7x faster calls); the watchdog in serve ends
	// the daemon if a call ever overruns. Compiled before the socket
	// exists: a hook that finds no socket runs in-process at once, where
	// one finding a socket still compiling would wait for its answer.
	compiled, err := runner.Compile(ctx, runner.Options{Wasm: o.Plugin, CacheDir: o.Paths.WasmCache(), NoInterrupt: true})
	if err != nil {
		return err
	}
	defer compiled.Close(context.Background())
	pool := make(chan *slot, o.Instances)
	defer func() {
		close(pool)
		for s := range pool {
			s.close()
		}
	}()
	if err := fillPool(ctx, pool, compiled, o); err != nil {
		return err
	}
	ln, mine, err := listen(sock)
	if err != nil {
		return err
	}
	defer ln.Close()
	// The socket goes with the daemon, unless the name is another's by
	// then (a daemon of a moved CTXHOOK_HOME, or one started after).
	defer func() {
		if now, err := os.Lstat(sock); err == nil && mine != nil && os.SameFile(mine, now) {
			os.Remove(sock)
		}
	}()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	act := &activity{last: time.Now()}
	go watchIdle(ctx, cancel, ln, o, mine, pool, act)
	kick, stopWriter := startWriter(o)
	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		o.decides.Wait()
		stopWriter()
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		act.touch()
		wg.Add(1)
		go func() {
			defer wg.Done()
			handle(ctx, cancel, conn, o, compiled, pool, act.touch, kick)
		}()
	}
}

// withDefaults fills in the options left zero, and the daemon's own
// state (runs, memory), and sets the process's soft memory limit.
func (o Options) withDefaults() Options {
	if o.Idle == 0 {
		o.Idle = 10 * time.Minute
	}
	if o.Instances == 0 {
		o.Instances = 1
	}
	if o.Watchdog == 0 {
		o.Watchdog = engine.DefaultDeadline
	}
	if o.Recycle == 0 {
		o.Recycle = 1000
	}
	if o.RecycleBytes == 0 {
		o.RecycleBytes = 128 << 20
	}
	if o.IdleBytes == 0 {
		o.IdleBytes = 32 << 20
	}
	if o.IdleTrim == 0 {
		o.IdleTrim = 30 * time.Second
	}
	if o.BuildID == "" {
		o.BuildID = BuildID()
	}
	o.runs = &runs{m: map[string]*run{}}
	o.decides = &sync.WaitGroup{}
	if o.LargeInFlight == 0 {
		o.LargeInFlight = LargeInFlight
	}
	o.mem = newMemory(o.LargeInFlight)
	// A soft memory limit keeps the long-lived daemon's heap near what it
	// uses, instead of twice that between collections. It is well above
	// what small hooks need: a limit below the live heap of one big
	// payload (which holds it a few times over while it is decided) makes
	// the collector run without pause, and a 64 MiB response would take
	// several times as long. Memory is given back when the daemon is
	// idle (IdleTrim), not after each big call: on a virtual machine each
	// page's first touch costs about 10 µs, and a daemon that returned
	// its memory after every big payload paid for it again on the next.
	debug.SetMemoryLimit(512 << 20)
	memtrim.SetBusy(collectorHeld) // a collection would wait for a guest call
	if o.Log == nil {
		o.Log = func(string) {}
	}
	return o
}

// lockDaemon makes the daemon's directories and takes its lock: one
// daemon per user, the lock held for the daemon's life, so of ten racing
// spawners exactly one gets past here (the others get ErrRunning).
func lockDaemon(o Options) (*os.File, error) {
	for _, d := range []string{o.Paths.DaemonDir(), filepath.Dir(o.Paths.Socket())} {
		if err := paths.EnsureDir(d); err != nil {
			return nil, err
		}
	}
	lock, err := os.OpenFile(filepath.Join(o.Paths.DaemonDir(), "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := platform.TryLock(lock); err != nil {
		lock.Close()
		return nil, ErrRunning
	}
	return lock, nil
}

// fillPool puts o.Instances slots in pool, the first with its instance
// made before the socket opens: its first request (a session's first
// hook, a proxy's first tools/call) would otherwise wait for it.
func fillPool(ctx context.Context, pool chan *slot, compiled *runner.Compiled, o Options) error {
	for range o.Instances {
		pool <- &slot{}
	}
	first := <-pool
	err := first.fill(ctx, compiled, o)
	pool <- first
	return err
}

// listen opens the daemon's socket, owner-only, in place of a stale one
// of a dead daemon (the lock is held); mine is the socket file, to tell
// later whether the name is still this daemon's.
func listen(sock string) (ln net.Listener, mine os.FileInfo, err error) {
	os.Remove(sock)
	if ln, err = listenPrivate(sock); err != nil {
		return nil, nil, err
	}
	os.Chmod(sock, 0o600)
	mine, _ = os.Lstat(sock)
	return ln, mine, nil
}

// activity is when the daemon last took a connection.
type activity struct {
	mu   sync.Mutex
	last time.Time
}

func (a *activity) touch() {
	a.mu.Lock()
	a.last = time.Now()
	a.mu.Unlock()
}

func (a *activity) since() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return time.Since(a.last)
}

// watchIdle ends the daemon when it has been idle for o.Idle or its
// socket is gone, and gives memory back once it has been idle for
// o.IdleTrim.
func watchIdle(ctx context.Context, cancel context.CancelFunc, ln net.Listener, o Options, mine os.FileInfo, pool chan *slot, act *activity) {
	trimmed := true
	sock := o.Paths.Socket()
	for {
		select {
		case <-ctx.Done():
			ln.Close()
			return
		case <-time.After(min(o.Idle/4, o.IdleTrim/2)):
			since := act.since()
			if since < o.IdleTrim {
				trimmed = false
			}
			if since > o.Idle {
				o.Log("idle, exiting")
				cancel()
			} else if now, err := os.Lstat(sock); mine != nil && (err != nil || !os.SameFile(mine, now)) {
				// Its directory was removed (a deleted CTXHOOK_HOME) or
				// another daemon took the name: nobody can reach this one.
				o.Log("socket gone, exiting")
				cancel()
			} else if since > o.IdleTrim && !trimmed {
				trimmed = true
				trim(pool, o.IdleBytes)
			}
		}
	}
}

// startWriter starts the writer that stores what the engines spooled:
// an answer waits for the decision and the state, not for SQLite. A send
// on kick asks for a pass; stop ends the writer after a last one.
func startWriter(o Options) (kick chan struct{}, stop func()) {
	kick = make(chan struct{}, 1)
	kick <- struct{}{} // anything a killed daemon left behind
	wctx, stopWriter := context.WithCancel(context.Background())
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		spool.Writer(wctx, o.Paths, func() (*store.Store, error) { return engine.OpenStore(o.Paths) }, o.Log, kick)
	}()
	return kick, func() {
		stopWriter()
		<-writerDone
	}
}

// handle serves one connection's requests until its client closes it,
// the daemon stops, or a client of another build retires the daemon.
func handle(ctx context.Context, cancel context.CancelFunc, conn net.Conn, o Options, compiled *runner.Compiled, pool chan *slot, touch func(), kick chan struct{}) {
	defer conn.Close()
	if !sameUser(conn) {
		o.Log("refused a connection from another user")
		return
	}
	// A client may keep its connection for further requests (the
	// proxy does); the daemon's end closes it when the daemon stops.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	br := bufio.NewReaderSize(conn, 64<<10)
	for first := true; ; first = false {
		retire, ok := serve(ctx, conn, br, first, o, compiled, pool, touch)
		select {
		case kick <- struct{}{}:
		default: // a pass is already due
		}
		if retire {
			o.Log("a client of another build asked: retiring")
			cancel()
		}
		if retire || !ok {
			return
		}
	}
}

// KeepIdle is how long a kept connection may wait for its next request
// before the daemon closes it.
const KeepIdle = 60 * time.Second

// slot is one plugin instance with its engine, recycled after use.
type slot struct {
	eng   *engine.Engine
	calls int
}

// fill gives the slot an instance if it has none.
func (s *slot) fill(ctx context.Context, compiled *runner.Compiled, o Options) error {
	if s.eng != nil {
		return nil
	}
	inst, err := compiled.Instance(ctx)
	if err != nil {
		return err
	}
	// Warmed before its first request: a session's first hook, or a
	// proxy's first tools/call after install, would otherwise wait for
	// what the guest does once (runner.Warm).
	if err := inst.Warm(ctx); err != nil {
		inst.Close(ctx)
		return err
	}
	s.eng, s.calls = engine.NewEngineOn(o.Paths, o.Getenv, inst, engine.Spool), 0
	return nil
}

func (s *slot) close() {
	if s.eng != nil {
		s.eng.Close(context.Background())
		s.eng = nil
	}
}

// trim replaces the idle instances that grew past limit and gives the
// daemon's free memory back to the system: after a burst of big payloads
// the daemon goes back to its small size.
func trim(pool chan *slot, limit int64) {
	n := cap(pool)
	var held []*slot
	for range n {
		select {
		case s := <-pool:
			held = append(held, s)
			if s.eng != nil && s.eng.MemoryBytes() > limit {
				s.close()
			}
		default: // in use: not idle after all
		}
	}
	for _, s := range held {
		pool <- s
	}
	debug.FreeOSMemory()
}

// serve answers one request on conn, read through br. The first request
// of a connection is due at once; a later one may come up to KeepIdle
// after the answer before it. It reports whether the daemon should
// retire (the client is of another build) and whether the connection
// may carry another request.
func serve(ctx context.Context, conn net.Conn, br *bufio.Reader, first bool, o Options, compiled *runner.Compiled, pool chan *slot, touch func()) (retire, ok bool) {
	if !first {
		conn.SetReadDeadline(time.Now().Add(min(KeepIdle, o.Idle)))
		if _, err := br.Peek(1); err != nil {
			return false, false
		}
		touch()
	}
	began := time.Now()
	conn.SetDeadline(began.Add(engine.DefaultDeadline + 5*time.Second))
	// The request's bytes are granted as its fields arrive and held until
	// its hook is decided (by decide, once it is handed there).
	lease := o.mem.lease()
	handed := false
	defer func() {
		if !handed {
			lease.release()
		}
	}()
	req, retire, ok := readRequest(conn, br, lease, o)
	if !ok {
		return retire, false
	}
	if o.Delay > 0 {
		time.Sleep(o.Delay)
	}
	harness, event, payload := req.Harness, req.Event, req.Payload
	// The client sends what is left of the hook's deadline. The agent
	// gets an answer by then, none if the decision is not made yet (a
	// big payload, a queue of them, a cold instance). A hook already
	// begun is finished here after that, its events stored all the same;
	// one still queued is dropped, since the client hands it on.
	left := req.Deadline
	// The client gives up a little earlier for a big payload, to hand it
	// on in time: the answer comes before that.
	answerBy := began.Add(left - answerMargin - hookproto.HandOn(len(payload)))
	timer := time.NewTimer(time.Until(answerBy))
	defer timer.Stop()
	noDecision := func() { answerNoDecision(conn, harness, event, left) }
	// The same hook already being decided here (the process a hook
	// client handed it on to asks again, under the same request id):
	// its run answers this request too, so a big payload is decided
	// once.
	r, joined := o.runs.start(req.ID)
	if joined {
		select {
		case <-r.done:
			return false, r.ok && answer(conn, r.answer)
		case <-timer.C:
			noDecision()
			return false, false
		}
	}
	if req.Late {
		// Nobody waits for this hook's answer (see engine.Unanswered).
		r.claim.Store(1)
	}
	handed = true
	o.decides.Add(1)
	go func() {
		defer o.decides.Done()
		defer lease.release()
		decide(ctx, o, compiled, pool, req, r)
	}()
	return false, awaitRun(conn, r, timer, noDecision, o)
}

// requestVars is the CTXHOOK_* variables of the environment a client
// sent (hookproto.PluginEnviron), which steer the plugin.
func requestVars(environ []string) map[string]string {
	env := map[string]string{}
	for _, line := range environ {
		if k, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(k, "CTXHOOK_") {
			env[k] = v
		}
	}
	return env
}

// answerNoDecision answers a hook whose decision did not come by its
// deadline left. Failed tells the proxy there is no decision (an empty
// stdout alone would mean "forward the message as it came"), and the
// hook client to hand the payload on: what runs on here is not on disk
// until the hook ends.
func answerNoDecision(conn net.Conn, harness, event string, left time.Duration) {
	msg := "ctxhook: " + hookproto.HandedOn(harness, event, left.Round(time.Millisecond)) + "\n"
	conn.SetWriteDeadline(time.Now().Add(time.Second))
	hookproto.Write(conn, []byte("ok"), []byte("0"), nil, []byte(msg), []byte(hookproto.NoDecision))
}

// awaitRun sends run r's answer, or at the timer no decision. A run not
// begun by then (queued behind other hooks) is dropped here, as the
// client hands it on; one begun runs to its end, and the process the
// client hands it to waits for it (joined, in serve). It reports whether
// the answer was sent.
func awaitRun(conn net.Conn, r *run, timer *time.Timer, noDecision func(), o Options) bool {
	select {
	case <-r.done:
	case <-timer.C:
		if r.claim.CompareAndSwap(0, 1) {
			noDecision()
			if r.state.CompareAndSwap(queued, dropped) {
				o.runs.forget(r)
			} else {
				if <-r.done; r.answer.Failed != "" {
					o.Log("a hook finished after its deadline failed: " + r.answer.Failed)
				}
			}
			return false
		}
		<-r.done // being applied: the answer is moments away
	}
	return r.ok && answer(conn, r.answer)
}

// readRequest reads one request within its bounds (memory.go); ok is
// false when there is none to decide, retire true when its client is of
// another build.
func readRequest(conn net.Conn, br *bufio.Reader, lease *lease, o Options) (req hookproto.Request, retire, ok bool) {
	fields, err := hookproto.ReadAdmitted(br, requestShape, lease.admit(o.BuildID))
	switch {
	case errors.Is(err, errMismatch) || err == nil && string(fields[hookproto.FieldBuild]) != o.BuildID:
		hookproto.Write(conn, []byte("mismatch"), []byte("0"), nil, nil)
		return req, true, false
	case errors.Is(err, errBusy), errors.Is(err, hookproto.ErrShape), errors.Is(err, hookproto.ErrTooLarge):
		// Refused before it was allocated: the client decides in-process.
		o.Log("refused a request: " + err.Error())
		conn.SetWriteDeadline(time.Now().Add(time.Second))
		hookproto.Write(conn, []byte("refused"), []byte("0"), nil, []byte("ctxhook: "+err.Error()+"\n"))
		return req, false, false
	case err != nil:
		return req, false, false
	}
	req, err = hookproto.ParseRequest(fields)
	return req, false, err == nil
}

// answer writes a decided hook's answer; it reports whether the
// connection may carry another request.
func answer(conn net.Conn, a engine.Answer) bool {
	// A big payload may take longer to decide than the deadline set for
	// reading it (the watchdog bounds the call itself): the answer still
	// goes out.
	conn.SetWriteDeadline(time.Now().Add(engine.DefaultDeadline))
	return hookproto.Write(conn, []byte("ok"), []byte(strconv.Itoa(a.Code)), []byte(a.Text), []byte(a.Stderr), []byte(a.Failed)) == nil
}

// answerMargin is how long before the hook's deadline the daemon answers
// without a decision: the answer must still cross the socket and leave
// the client.
const answerMargin = 150 * time.Millisecond

// decide runs one hook on an instance from the pool, to its end, whether
// or not its answer is still awaited (r.claim, shared with serve and the
// engine: see engine.Request.Answered), unless serve dropped it before it
// began (r.state). ok is false when there is nothing to send: dropped,
// or the daemon is shutting down.
func decide(ctx context.Context, o Options, compiled *runner.Compiled, pool chan *slot, req hookproto.Request, r *run) (a engine.Answer, ok bool) {
	var s *slot
	select {
	case s = <-pool:
	case <-ctx.Done():
		o.runs.finish(r, a, false)
		return a, false
	}
	defer func() {
		o.runs.finish(r, a, ok)
		// An instance closed below is replaced now, after the answer and
		// before the slot serves again: the next request finds it made
		// and warmed, rather than paying for both (an error is the next
		// request's to report, when fill runs again).
		if s.eng == nil && ctx.Err() == nil {
			disarm := platform.ArmWatchdog(o.Watchdog, func() { o.Log("replacing an instance overran the deadline: exiting") })
			s.fill(ctx, compiled, o)
			disarm()
		}
		pool <- s
	}()
	if !r.state.CompareAndSwap(queued, begun) {
		return a, false
	}
	if s.eng != nil && (s.calls >= o.Recycle || s.eng.Broken() != nil || s.eng.MemoryBytes() > o.RecycleBytes) {
		s.close()
	}
	if err := s.fill(ctx, compiled, o); err != nil {
		return engine.Answer{Stderr: "ctxhook: daemon: " + err.Error() + "\n", Failed: err.Error()}, true
	}
	s.calls++
	reqEnv := engineRequest(req, r, o)
	// Watchdog: a guest call cannot be interrupted here, so one that
	// overruns the deadline ends the whole daemon. Its clients answer
	// in-process (with interruptible calls) and the next hook starts a
	// fresh daemon.
	// A big payload gets longer, at a floor of 4 MB/s (the hook client's
	// wait): one of 64 MiB on a busy machine is not a stuck call.
	bound := o.Watchdog + time.Duration(len(req.Payload)/(4<<20))*time.Second
	disarm := platform.ArmWatchdog(bound, func() { o.Log("a call overran the deadline: exiting") })
	release := holdCollector()
	// serve answers at the hook's deadline; the run itself has the budget
	// of a hook finished in the background.
	a = engine.RunPayload(ctx, s.eng, reqEnv, hookproto.Late, req.Harness, req.Event, req.Payload)
	release()
	disarm()
	// One failure touches one message: an instance that trapped, or grew
	// very large on a big payload, is replaced now, before the next call.
	if err := s.eng.Broken(); err != nil {
		o.Log("plugin instance replaced after: " + err.Error())
		s.close()
	} else if s.eng.MemoryBytes() > o.RecycleBytes {
		s.close()
	}
	return a, true
}

// engineRequest is the engine's view of a request run r decides: its
// name, and its environment, whose CTXHOOK_* variables win over the
// daemon's own (one the client did not send reads as unset).
func engineRequest(req hookproto.Request, r *run, o Options) engine.Request {
	env := requestVars(req.Environ)
	return engine.Request{ID: req.ID, Answered: &r.claim, Environ: func() []string { return req.Environ }, Getenv: func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if strings.HasPrefix(k, "CTXHOOK_") {
			return ""
		}
		return o.Getenv(k)
	}}
}

// The collector is held off while a guest call runs. Compiled wasm has
// no point where the Go scheduler can stop it, and a collection must stop
// every goroutine at its start and end: one begun during a 2 s call on a
// 64 MiB payload held the whole daemon for the rest of that call, the
// timers that answer other hooks at their deadlines included, so those
// hooks answered late. debug.SetGCPercent(-1) also waits for a
// collection under way to end, so none is running when the call begins.
// The memory limit still applies (past it the collector runs, and waits):
// the daemon's heap is the payloads it is reading, well under it.
var collector struct {
	sync.Mutex
	held    int
	percent int
}

// collectorHeld reports whether a guest call holds the collector off.
func collectorHeld() bool {
	collector.Lock()
	defer collector.Unlock()
	return collector.held > 0
}

// holdCollector holds the collector off until the returned func is
// called; holds may overlap (one per instance).
func holdCollector() (release func()) {
	collector.Lock()
	if collector.held == 0 {
		collector.percent = debug.SetGCPercent(-1)
	}
	collector.held++
	collector.Unlock()
	return func() {
		collector.Lock()
		if collector.held--; collector.held == 0 {
			debug.SetGCPercent(collector.percent)
		}
		collector.Unlock()
	}
}

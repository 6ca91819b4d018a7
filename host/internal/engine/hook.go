// Package engine runs one harness hook: it reads the payload, asks the plugin
// for a decision, applies the plugin's effects (state, store, tallies) and
// prints the decision.
//
// It never breaks the agent. Every failure (bad input, a plugin error, a
// locked or corrupt store, the deadline) ends with exit 0 and one line on
// stderr; events the store cannot take are spooled and written later.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unsafe"

	harnessconfigs "github.com/ctxhook/ctxhook/harness-configs"
	"github.com/ctxhook/ctxhook/host/internal/childenv"
	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/firing"
	"github.com/ctxhook/ctxhook/host/internal/hookhealth"
	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/ownsecrets"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/host/internal/state"
	"github.com/ctxhook/ctxhook/host/internal/testhooks"
	"github.com/ctxhook/ctxhook/host/internal/transcripts"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/spool"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// MaxInput bounds the payload read from stdin (hookproto.MaxInput).
const MaxInput = hookproto.MaxInput

// DefaultDeadline is the whole hook's budget unless CTXHOOK_HOOK_DEADLINE_MS
// says otherwise; it is well inside every harness's own hook timeout.
const DefaultDeadline = hookproto.Default

// Engine runs hooks with one loaded plugin. The hook command makes one per
// process; the demo reuses one for a whole replay; the daemon and the
// proxy one per instance, each request with its own environment (DoIn).
// One call at a time.
type Engine struct {
	Paths paths.Paths
	// Getenv and Environ are the environment of Do (the process's, for a
	// hook command); DoIn takes a request's instead.
	Getenv  func(string) string
	Environ func() []string
	Now     func() time.Time
	// sink is where effects go, fixed when the engine is made.
	sink     Sink
	runner   *runner.Runner
	cfg      *abi.Config
	cfgStamp string
	writes   int
	st       *store.Store
	sd       *state.Dir
}

// NewEngine loads the plugin (using the compilation cache in p.Cache);
// its effects go to sink.
func NewEngine(ctx context.Context, p paths.Paths, getenv func(string) string, sink Sink) (*Engine, error) {
	return NewEngineWith(ctx, p, getenv, runner.Options{}, sink)
}

// NewEngineOn is an engine running on a given plugin instance (the
// daemon's, from a shared compiled plugin). Close closes the instance.
func NewEngineOn(p paths.Paths, getenv func(string) string, r *runner.Runner, sink Sink) *Engine {
	return &Engine{Paths: p, Getenv: getenv, Now: time.Now, runner: r, sink: sink}
}

// NewEngineWith is NewEngine with runner options (CacheDir is set here).
func NewEngineWith(ctx context.Context, p paths.Paths, getenv func(string) string, o runner.Options, sink Sink) (*Engine, error) {
	o.CacheDir = p.WasmCache()
	r, err := runner.New(ctx, o)
	if err != nil {
		return nil, err
	}
	return NewEngineOn(p, getenv, r, sink), nil
}

// Broken is the error that left the engine's plugin instance unusable,
// or nil (runner.Runner.Broken): a long-lived host replaces it.
func (e *Engine) Broken() error { return e.runner.Broken() }

// MemoryBytes is the high-water mark of the plugin instance's memory
// (runner.Runner.MemoryBytes).
func (e *Engine) MemoryBytes() int64 { return e.runner.MemoryBytes() }

// Close unloads the plugin and closes a kept store.
func (e *Engine) Close(ctx context.Context) error {
	if e.st != nil {
		e.st.Close()
	}
	return e.runner.Close(ctx)
}

// stateDir opens the state directory, once for a long-lived engine.
func (e *Engine) stateDir() (state.Dir, error) {
	if e.sd != nil {
		return *e.sd, nil
	}
	sd, err := state.Open(e.Paths.StateDir())
	if err == nil && e.sink.longLived() {
		e.sd = &sd
	}
	return sd, err
}

func (e *Engine) config() (abi.Config, error) {
	// A long-lived engine re-reads the file when it changed, so an edit
	// takes effect on the next call, daemon or not.
	var stamp string
	if fi, err := os.Stat(e.Paths.Config); err == nil {
		stamp = fi.ModTime().String() + "/" + strconv.FormatInt(fi.Size(), 10)
	}
	if e.cfg != nil && stamp == e.cfgStamp {
		return *e.cfg, nil
	}
	cfg, err := config.Load(e.Paths.Config)
	if e.sink.longLived() && err == nil {
		e.cfg, e.cfgStamp = &cfg, stamp
	}
	return cfg, err
}

// newConfigProblem reports whether err, a problem with the config file,
// has not been told yet: a hook says it once (the file config-warned in
// the data directory remembers the text), not on every tool call;
// `ctxhook doctor` says it every time.
func (e *Engine) newConfigProblem(err error) bool {
	marker := filepath.Join(e.Paths.Data, "config-warned")
	if b, rerr := os.ReadFile(marker); rerr == nil && string(b) == err.Error() {
		return false
	}
	if paths.EnsureDir(e.Paths.Data) == nil {
		os.WriteFile(marker, []byte(err.Error()), 0o600)
	}
	return true
}

// Result is what one hook produced.
type Result struct {
	// Answer is the hook's answer to the harness; for an mcp-proxy
	// request, the message to forward ("": forward it as it came).
	Answer   string
	ExitCode int
	// Warnings are single lines for stderr (never containing payload data).
	Warnings []string
	// EventIDs are the ids of the events stored (none when spooled).
	EventIDs []int64
	// Spooled is true when events went to the spool instead of the store
	// because the store could not take them.
	Spooled bool
	// Deferred is true when events went to the spool by design (an
	// Engine whose sink is Spool, or a big batch: StoreLater), for a
	// writer to store them.
	Deferred bool
	// Lost is true when the events could be neither stored nor spooled.
	Lost bool
	// StoreLater is true when a hook process spooled its events for a
	// writer to store after it answered (a big response): the caller
	// starts one (IO.StoreLater) unless a daemon will.
	StoreLater bool
	// Response is the plugin's full answer, for tests and the demo.
	Response abi.HandleResponse
}

// Do runs one hook in the engine's environment, under the request id id
// (or none: "").
func (e *Engine) Do(ctx context.Context, id, harness, event string, payload []byte) (Result, error) {
	return e.DoIn(ctx, Request{Getenv: e.Getenv, Environ: e.Environ, ID: id}, harness, event, payload)
}

// DoIn runs one hook as the request req.
func (e *Engine) DoIn(ctx context.Context, req Request, harness, event string, payload []byte) (Result, error) {
	if req.Getenv == nil {
		req.Getenv = e.Getenv
	}
	return e.do(ctx, req, harness, event, payload)
}

func (e *Engine) do(ctx context.Context, call Request, harness, event string, payload []byte) (Result, error) {
	var res Result
	firing.Note(e.Paths.Data, harness, event, payload, e.Now()) // doctor's proof that hooks fire
	cfg, err := e.config()
	if err != nil && e.newConfigProblem(err) {
		res.Warnings = append(res.Warnings, err.Error())
	}
	// The payload as a string without a copy (it may be 100 MiB): nothing
	// writes to it once read.
	text := unsafe.String(unsafe.SliceData(payload), len(payload))
	prep, err := e.runner.Prepare(ctx, abi.PrepareRequest{Harness: harness, Event: event, Payload: text})
	if err != nil {
		return res, err
	}
	req := abi.HandleRequest{Harness: harness, Event: event, Payload: text, Config: cfg,
		Env: pluginEnv(call), Environ: pluginEnviron(call), NowMS: e.Now().UnixMilli(), Prepared: prep.Prepared,
		RequestID: call.ID}
	if len(prep.Files) > 0 {
		req.Files = readFiles(prep.Files)
	}
	own := e.ownSecrets(call)
	req.Environ = append(req.Environ, ownsecrets.Environ(ownsecrets.Present(own, requestTexts(req)...))...)
	if harness == abi.HarnessClaudeCode && event == "SessionStart" {
		req.HookServer = e.hookServer(ctx, call)
	}

	sd, err := e.stateDir()
	var unlock func()
	if err == nil {
		unlock, err = sd.Lock(prep.StateKeys, 2*time.Second)
	}
	if err == nil {
		req.State, err = sd.Read(prep.StateKeys)
	}
	if err != nil {
		req.StateError = err.Error()
		res.Warnings = append(res.Warnings, err.Error())
	}
	resp, err := e.runner.Handle(ctx, req)
	if err != nil {
		if unlock != nil {
			unlock()
		}
		return res, err
	}
	res.Response, res.Answer, res.ExitCode = resp, resp.Stdout, resp.ExitCode
	if resp.Stderr != "" {
		res.Warnings = append(res.Warnings, resp.Stderr)
	}

	e.apply(&res, call, sd, unlock, resp.Effects)
	if res.Lost && resp.Unstored != nil {
		// The answer must not point the model at an event nobody kept.
		res.Answer = resp.Unstored.Stdout
	}
	e.indexTranscripts(ctx, &res, cfg, resp.Effects, own)
	return res, nil
}

// requestTexts is what the plugin reads of a request besides its state:
// the payload and the files the host read for it.
func requestTexts(req abi.HandleRequest) []string {
	out := []string{req.Payload}
	for _, f := range req.Files {
		out = append(out, f.Content)
	}
	return out
}

// ownSecrets are the values ctxhook holds that the plugin must redact
// wherever they appear (ownsecrets): a long-lived engine keeps them
// cached; a hook process reads the record of own values.
func (e *Engine) ownSecrets(call Request) []string {
	if e.sink.longLived() {
		return ownsecrets.Shared(e.Paths.StateDir()).Values(e.Paths, call.getenv, e.Getenv)
	}
	return ownsecrets.Gather(e.Paths, ownsecrets.Hook, call.getenv, e.Getenv)
}

// hookServer says why the user's mcp_tool hooks will not be answered,
// or "" (hookhealth): Claude Code's SessionStart is still a command hook,
// and the only one to run when ctxhook's MCP server cannot, so it tells.
func (e *Engine) hookServer(ctx context.Context, call Request) string {
	base := os.Environ()
	if call.Environ != nil {
		base = call.Environ()
	}
	exe, _ := os.Executable()
	r := hookhealth.Check(ctx, call.getenv, childenv.Overlay(base, call.getenv), e.Paths, "user", "", exe)
	return r.Problem()
}

// apply carries out a decision's effects: state under the lock taken
// for the decision (unlock nil: state was unreadable, so it is not
// clobbered blind), then events and tallies into the store, or the spool.
func (e *Engine) apply(res *Result, call Request, sd state.Dir, unlock func(), effects []abi.Effect) {
	undelivered := e.sink == Unanswered || call.Answered != nil && !call.Answered.CompareAndSwap(0, 2)
	var events []abi.Event
	var tallies []abi.Effect
	for _, eff := range effects {
		switch eff.Op {
		case abi.OpSetState:
			if unlock == nil {
				continue
			}
			// The record first: a token is never in a document before it
			// is among the values to redact.
			if err := ownsecrets.Note(e.Paths.StateDir(), eff.Value); err != nil {
				res.Warnings = append(res.Warnings, err.Error())
			}
			if err := sd.Write(eff.Key, eff.Value); err != nil {
				res.Warnings = append(res.Warnings, err.Error())
			}
		case abi.OpStoreEvent:
			if eff.Event != nil {
				events = append(events, *eff.Event)
			}
		case abi.OpTally:
			if eff.IfDelivered && undelivered {
				continue
			}
			tallies = append(tallies, eff)
		case abi.OpIndexTranscript:
			// after the events: see indexTranscripts
		default:
			res.Warnings = append(res.Warnings, fmt.Sprintf("ignoring unknown effect %q", eff.Op))
		}
	}
	if unlock != nil {
		unlock()
	}
	// A big response is spooled and stored after the answer: inserting
	// 64 MiB into the indexes takes seconds the agent should not wait. A
	// daemon's writer does that for every batch; a hook process asks for
	// it (Result.StoreLater). A hook finished late has nobody waiting,
	// and stores at once.
	later := e.sink == Store && batchBytes(events) > spool.ReplayInline
	if (len(events) > 0 || len(tallies) > 0) && (e.sink == Spool || later) {
		if err := spool.Write(e.Paths.SpoolDir(), events, tallies, call.batch(), later); err != nil {
			// The spool cannot be written: store them now after all.
			res.Warnings = append(res.Warnings, err.Error())
		} else {
			res.Deferred, res.StoreLater = true, later
			return
		}
	}
	if len(events) > 0 || len(tallies) > 0 {
		ids, err := e.write(events, tallies, call.batch())
		if err != nil {
			res.Spooled = true
			res.Lost = errors.Is(err, errLost)
			res.Warnings = append(res.Warnings, err.Error())
		}
		res.EventIDs = ids
	}
}

// indexTranscripts brings the transcripts the plugin named up to date,
// one pass each (at most transcripts.MaxPass bytes): a hook must stay
// quick, and `ctxhook index` catches up on anything larger.
// own are the values ctxhook holds (ownsecrets), redacted from the turns
// as from the hook's events.
func (e *Engine) indexTranscripts(ctx context.Context, res *Result, cfg abi.Config, effects []abi.Effect, own []string) {
	for _, eff := range effects {
		if eff.Op != abi.OpIndexTranscript || eff.Path == "" {
			continue
		}
		st, err := store.Open(e.Paths.DB(), store.Options{})
		if err != nil {
			res.Warnings = append(res.Warnings, "transcript not indexed: "+err.Error())
			return
		}
		readState := func(keys []string) (map[string]string, error) {
			sd, err := e.stateDir()
			if err != nil {
				return nil, err
			}
			return sd.Read(keys)
		}
		job := transcripts.Job{Path: eff.Path, Format: eff.Format, Session: eff.Session, Final: eff.Final, Known: own}
		if _, err := transcripts.Index(ctx, e.runner, st, cfg, readState, job, 1); err != nil {
			res.Warnings = append(res.Warnings, "transcript not indexed: "+err.Error())
		}
		st.Close()
	}
}

// write stores events, first replaying anything spooled earlier; when the
// store cannot be written the events are spooled instead.
func (e *Engine) write(events []abi.Event, tallies []abi.Effect, batch string) ([]int64, error) {
	st, err := e.st, error(nil)
	if st == nil {
		cfg, _ := e.config() // a bad config still has the default caps
		st, err = store.Open(e.Paths.DB(), store.Options{Retention: store.RetentionFrom(cfg.Retention)})
		if err == nil && e.sink.longLived() {
			e.st = st
		} else if err == nil {
			defer st.Close()
		}
	}
	if err == nil {
		spool.Replay(e.Paths.SpoolDir(), st, spool.ReplayInline, nil)
		var ids []int64
		if ids, err = st.ApplyOnce(store.Batch{Name: batch}, events, tallies); err == nil {
			e.writes++
			// SQLite runs in its own wasm instance whose memory only grows;
			// FTS segment merges make it spike. A long-lived engine reopens
			// the store now and then so that memory is returned.
			if e.sink.longLived() && e.writes%500 == 0 && e.st != nil {
				e.st.Close()
				e.st = nil
			}
			return ids, nil
		}
	}
	if serr := spool.Write(e.Paths.SpoolDir(), events, tallies, batch, true); serr != nil {
		return nil, fmt.Errorf("%v; spool failed too, %w: %v", err, errLost, serr)
	}
	return nil, fmt.Errorf("%v; events spooled for later", err)
}

// batchBytes is the size of a batch's bodies.
func batchBytes(events []abi.Event) int {
	n := 0
	for _, e := range events {
		n += len(e.Response) + len(e.Text) + len(e.Args)
	}
	return n
}

// errLost marks a write whose events could be neither stored nor spooled.
var errLost = errors.New("events lost")

// pluginEnviron is what the plugin gets of the hook's environment: the
// entries that may hold a secret (hookproto.Sensitive, the rule a client
// of the daemon sends them by).
func pluginEnviron(call Request) []string {
	all := os.Environ()
	if call.Environ != nil {
		all = call.Environ()
	}
	var out []string
	for _, kv := range all {
		if hookproto.Sensitive(kv) {
			out = append(out, kv)
		}
	}
	return out
}

// pluginEnv is the variables the plugin reads (abi.HandleRequest.Env).
func pluginEnv(call Request) map[string]string {
	out := map[string]string{}
	for _, k := range []string{abi.EnvNudgeEvery, abi.EnvCapture} {
		if v := call.getenv(k); v != "" {
			out[k] = v
		}
	}
	return out
}

// IO is the process's standard streams.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Finish, when set, hands a hook that reached its deadline to a
	// process of its own (see Run): the payload, and the environment
	// entries the finisher needs on top of this process's. Nil: a hook
	// at its deadline is dropped.
	Finish func(harness, event string, payload []byte, env []string) error
	// Process: Run owns the process (ctxhook hook), and a kernel
	// watchdog may end it when the deadline cannot be kept (see Run).
	Process bool
	// StoreLater, when set, starts a writer of the spool in the
	// background, after the answer went out (Result.StoreLater). Nil: the
	// spooled events wait for the next writer.
	StoreLater func()
}

// EnvLate marks a hook being finished in the background: its budget is
// hookproto.Late and it is not handed on again.
const EnvLate = hookproto.EnvLate

// Deadline is a hook's budget: CTXHOOK_HOOK_DEADLINE_MS, else
// DefaultDeadline.
func Deadline(getenv func(string) string) time.Duration {
	return hookproto.Hook(getenv)
}

// Run is `ctxhook hook <harness> <event>`: the whole fail-open contract.
//
// At the deadline the agent gets its answer (none: exit 0) whatever the
// hook is doing. The payload is not dropped with it: when it was read in
// full, stdio.Finish hands it to a background process that runs the same
// hook to the end, under the same request id, so its events are stored
// once even if this process got as far as storing them. The usual cause
// is a cold start: many hooks at once on a machine where the plugin is
// not compiled yet.
func Run(ctx context.Context, harness, event string, stdio IO, getenv func(string) string) int {
	warn := func(msg string) { fmt.Fprintf(stdio.Stderr, "ctxhook: %s\n", oneLine(msg)) }
	late := getenv(EnvLate) != ""
	deadline := Deadline(getenv)
	if late {
		deadline = max(deadline, hookproto.Late)
	}
	mayHandOn := stdio.Finish != nil && !late
	getenv, extra := finisherEnv(getenv, mayHandOn)
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	// The answer at the deadline below rests on a Go timer, which stands
	// still if a collection waits for a guest call that never returns.
	// Past the deadline and a second more, the kernel ends the process
	// (SIGTERM: no answer, an exit status the harness reports and
	// passes).
	if stdio.Process {
		defer platform.ArmWatchdog(deadline+time.Second, func() {})()
		keepRuntimeFree()
	}

	done, read := startRun(ctx, harness, event, stdio, getenv, mayHandOn)
	// handOn gives the payload, once read, to a finisher: the answer
	// goes out now, without a decision, and the event is still stored.
	handOn := func() bool {
		if !handOnPayload(stdio, harness, event, read, extra, !late) {
			return false
		}
		warn(hookproto.HandedOn(harness, event, deadline))
		return true
	}
	select {
	case <-ctx.Done():
		if !handOn() {
			warn(fmt.Sprintf("%s %s: gave up after %v; the agent continues without ctxhook", harness, event, deadline))
		}
		return 0
	case o := <-done:
		for _, w := range o.res.Warnings {
			warn(w)
		}
		if errors.Is(o.err, runner.ErrCold) && handOn() {
			// Another process compiles the plugin: this one leaves it
			// to that one and answers before its deadline (coldMargin).
			return 0
		}
		if o.err != nil {
			warn(fmt.Sprintf("%s %s: %v; the agent continues without ctxhook", harness, event, o.err))
			return 0
		}
		io.WriteString(stdio.Stdout, o.res.Answer)
		if o.res.StoreLater && stdio.StoreLater != nil {
			stdio.StoreLater()
		}
		return o.res.ExitCode
	}
}

// finisherEnv is the environment a hook runs in, and what a finisher
// (handOn) needs on top of it: a hook that may be handed on gets a
// request id, a name for its events that its finisher keeps, and the
// finisher is marked late.
func finisherEnv(getenv func(string) string, mayHandOn bool) (func(string) string, []string) {
	if !mayHandOn {
		return getenv, nil
	}
	var extra []string
	if getenv(hookproto.EnvRequestID) == "" {
		id := hookproto.RequestID()
		outer := getenv
		getenv = func(k string) string {
			if k == hookproto.EnvRequestID {
				return id
			}
			return outer(k)
		}
		extra = append(extra, hookproto.EnvRequestID+"="+id)
	}
	return getenv, append(extra, EnvLate+"=1")
}

// outcome is how one run of a hook ended.
type outcome struct {
	res Result
	err error
}

// startRun runs the hook in the background: done gets its outcome, read
// the payload once read in full. mayHandOn: Run can hand the hook to a
// finisher, so the load need not wait for another process to compile.
func startRun(ctx context.Context, harness, event string, stdio IO, getenv func(string) string, mayHandOn bool) (<-chan outcome, <-chan []byte) {
	done := make(chan outcome, 1)
	read := make(chan []byte, 1)
	go func() {
		// A panic anywhere in the run is one failed hook, answered as
		// every failure is (fail-open), never a crash: a crash's exit
		// status is one some harnesses take for "block the tool".
		defer func() {
			if r := recover(); r != nil {
				done <- outcome{err: fmt.Errorf("internal error: %v", r)}
			}
		}()
		res, err := runOnce(ctx, harness, event, stdio.Stdin, getenv, read, stdio.Process, mayHandOn)
		done <- outcome{res, err}
	}()
	return done, read
}

// handOnPayload gives the payload to stdio.Finish once read, when the
// hook may be handed on (may: it is not a finisher itself). A payload
// still being read (tens of MiB from a busy pipe, or the file the hook
// client handed on) gets hookproto.Grace longer: handed on, it is
// stored; dropped, it is lost.
func handOnPayload(stdio IO, harness, event string, read <-chan []byte, extra []string, may bool) bool {
	var payload []byte
	select {
	case payload = <-read:
	case <-time.After(hookproto.Grace):
	}
	return may && payload != nil && stdio.Finish != nil && stdio.Finish(harness, event, payload, extra) == nil
}

// keepRuntimeFree lets the answer at the deadline run while a guest call
// does not return. Compiled wasm has no points where the Go scheduler
// can stop it, so a guest that loops holds its thread until the call
// ends, and two things then stop everything else: a single P (Go sizes
// GOMAXPROCS to the CPU quota, one CPU in many containers), and a
// collection, which waits for every goroutine to stop. A hook process
// lives for one payload, so it keeps a second P and collects only past
// a memory limit (its peak is the guest's memory and the payload, which
// are not Go heap: a 64 MiB payload peaks at the same RSS either way).
// GOMEMLIMIT, when set, is kept.
func keepRuntimeFree() {
	if runtime.GOMAXPROCS(0) < 2 {
		runtime.GOMAXPROCS(2)
	}
	debug.SetGCPercent(-1)
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(hookMemoryLimit)
	}
}

// hookMemoryLimit is the Go heap past which a hook process collects
// again, though it is not meant to get near it.
const hookMemoryLimit = 1 << 30

// Answer is what RunPayload gives a long-lived host to pass on.
type Answer struct {
	Code int
	// Text is the hook's answer to the harness; for an mcp-proxy
	// request, the message to forward ("": forward it as it came).
	Text, Stderr string
	// Failed is the error that left no decision (stdout is then empty, as
	// for a hook that fails open), or "". A hook answers the same either
	// way; the proxy must tell the two apart (an empty stdout otherwise
	// means "forward the message as it came").
	Failed string
}

// RunPayload is Run for a long-lived host (the daemon): the payload is
// already read and the engine already loaded; env is the request's
// environment and deadline its budget. It keeps the same contract: the
// deadline, fail-open on every error, one line per warning.
func RunPayload(ctx context.Context, eng *Engine, req Request, deadline time.Duration, harness, event string, payload []byte) Answer {
	var stderr strings.Builder
	warn := func(msg string) { fmt.Fprintf(&stderr, "ctxhook: %s\n", oneLine(msg)) }
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	if len(payload) > MaxInput {
		msg := fmt.Sprintf("payload larger than %d MiB; the agent continues without ctxhook", MaxInput>>20)
		warn(msg)
		return Answer{Stderr: stderr.String(), Failed: msg}
	}
	res, err := eng.DoIn(ctx, req, harness, event, payload)
	for _, w := range res.Warnings {
		warn(w)
	}
	if err != nil {
		warn(fmt.Sprintf("%s %s: %v; the agent continues without ctxhook", harness, event, err))
		return Answer{Stderr: stderr.String(), Failed: err.Error()}
	}
	return Answer{Code: res.ExitCode, Text: res.Answer, Stderr: stderr.String()}
}

// coldMargin is what a hook keeps of its deadline when the plugin is
// still being compiled by another process: it stops waiting for it this
// much before the deadline, so that handing the payload on (starting a
// process) still ends before it.
const coldMargin = 300 * time.Millisecond

// lateCallBound bounds a finisher's decision of n bytes (its guest runs
// without cancellation checks: see runOnce): the daemon's bound for one
// call, so a payload that makes the plugin loop costs the finisher that
// much of a core, not its whole budget.
func lateCallBound(n int) time.Duration {
	return DefaultDeadline + time.Duration(n/(4<<20))*time.Second
}

func runOnce(ctx context.Context, harness, event string, stdin io.Reader, getenv func(string) string, read chan<- []byte, process, mayHandOn bool) (Result, error) {
	payload, err := ReadPayload(stdin)
	if err != nil {
		return Result{}, fmt.Errorf("read stdin: %w", err)
	}
	if len(payload) > MaxInput {
		return Result{}, fmt.Errorf("payload larger than %d MiB", MaxInput>>20)
	}
	read <- payload
	p, err := paths.Resolve(getenv)
	if err != nil {
		return Result{}, err
	}
	// A hook process needs no interruptible guest calls: Run's deadline
	// answers and the process exits, taking a stuck call with it. Without
	// the cancellation checks each call is about 7x faster. A hook being
	// finished late loads the same build (the daemon's too): a cold start
	// then compiles one build, not two. Nobody waits for it, so the
	// kernel's timer bounds its decision instead (lateCallBound): a
	// payload that makes the plugin loop costs it that, not its budget.
	late := getenv(EnvLate) != ""
	// A hook that can hand its payload on does not wait for another
	// process's compilation (ErrCold at once: Run hands it on and
	// answers); its finisher, with minutes, waits for it instead.
	o := runner.Options{NoInterrupt: true, HandOnCold: mayHandOn}
	// A replacement plugin, in a ctxhook_testhooks build only (fault tests).
	if o.Wasm, err = testhooks.PluginWasm(getenv); err != nil {
		return Result{}, err
	}
	sink := Store
	if late {
		sink = Unanswered
	}
	eng, err := loadEngine(ctx, p, getenv, o, sink)
	if err != nil {
		return Result{}, err
	}
	defer eng.Close(context.Background())
	if late && process {
		defer platform.ArmWatchdog(lateCallBound(len(payload)), func() {})()
	}
	return eng.Do(ctx, getenv(hookproto.EnvRequestID), harness, event, payload)
}

// loadEngine loads the plugin for one hook. While another process
// compiles it into the cache, the hook gets runner.ErrCold: at once when
// it can hand its payload on (o.HandOnCold), else (a finisher) once it
// has waited for that process until coldMargin before its deadline.
func loadEngine(ctx context.Context, p paths.Paths, getenv func(string) string, o runner.Options, sink Sink) (*Engine, error) {
	cctx := ctx
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		cctx, cancel = context.WithDeadline(ctx, d.Add(-coldMargin))
		defer cancel()
	}
	return NewEngineWith(cctx, p, getenv, o, sink)
}

// ReadPayload reads stdin to its end, at most MaxInput+1 bytes. A
// payload handed on in a file (by the hook client, or a hook at its
// deadline), or already in memory (a finisher the daemon could not
// serve), is read into one buffer of its size: growing a buffer by
// doubling copied and first-touched a 63 MiB payload several times over,
// which took over a second on a busy machine, past the half second a
// hook waits at its deadline for the payload to hand it on.
func ReadPayload(stdin io.Reader) ([]byte, error) {
	if r, ok := stdin.(interface{ Len() int }); ok {
		b := make([]byte, min(r.Len(), MaxInput+1))
		n, err := io.ReadFull(stdin, b)
		return b[:n], err
	}
	if f, ok := stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
			b := make([]byte, 0, min(fi.Size(), MaxInput)+1)
			for len(b) < cap(b) {
				n, err := f.Read(b[len(b):cap(b)])
				b = b[:len(b)+n]
				if err == io.EOF {
					return b, nil
				}
				if err != nil {
					return nil, err
				}
			}
			// Longer than it was (written to still): the rest too.
			rest, err := io.ReadAll(io.LimitReader(f, MaxInput+1-int64(len(b))))
			return append(b, rest...), err
		}
	}
	return io.ReadAll(io.LimitReader(stdin, MaxInput+1))
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}

// Harnesses lists the harnesses `ctxhook hook` accepts.
var Harnesses = harnessconfigs.HookNames()

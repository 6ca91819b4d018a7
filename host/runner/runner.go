// Package runner loads plugin.wasm through the Extism Go SDK (wazero) and
// calls its exports. It is the only way host code reaches a decision.
//
// Loading validates the module: every export in abi.RequiredExports must
// exist and ctxhook_abi_version must equal abi.Version, else New fails with
// an error naming what is wrong. Compiled code is cached on disk, so only
// the first process after an install or upgrade pays for compilation.
//
// Bulk bytes (a payload, a stored response) cross into and out of the guest
// over its WASI standard input and output when the plugin has the fd
// exports (ABI.md, "Bulk bytes over WASI"): one copy each way, instead of
// Extism's transfers of 8 bytes per host call.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/plugin"
	"github.com/ctxhook/ctxhook/plugin/abi"
	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
)

// Errors a caller can tell apart with errors.Is.
var (
	ErrMissingExport = errors.New("runner: plugin lacks required exports")
	ErrABIVersion    = errors.New("runner: plugin ABI version mismatch")
	ErrCall          = errors.New("runner: plugin call failed")
)

// DefaultMaxMemoryPages caps guest memory: 16384 pages of 64 KiB, 1 GiB.
// A 64 MiB payload needs a few times its size while it is decided; the
// memory is reserved, not used, until the guest grows into it (see
// memory_linux.go), and an instance that grew is replaced (Runner.MemoryBytes).
const DefaultMaxMemoryPages = 16384

// Options tune a Runner. Zero values are sane defaults.
type Options struct {
	// Wasm is the module; nil means the embedded plugin.Wasm.
	Wasm []byte
	// CacheDir holds wazero's compilation cache; "" disables it. Its
	// entries are native code that is run: a directory another user owns
	// or may write, or an entry of theirs in it, is not used (package
	// owned), and Warn says why.
	CacheDir string
	// Warn receives a one-line warning (default: stderr).
	Warn func(string)
	// CallTimeout bounds each export call (default 2 s), so a guest stuck
	// in a loop is stopped. It is not free: wazero then checks for
	// cancellation throughout the guest's code, which measured 7x slower
	// per call on a 6 KB payload (2.6 ms to 18 ms warm); see RATIONALE.md.
	// A call with a large payload gets more (CallTimeoutFor).
	CallTimeout time.Duration
	// MaxMemoryPages caps guest memory in 64 KiB pages (default
	// DefaultMaxMemoryPages).
	MaxMemoryPages uint32
	// NoInterrupt compiles the guest without cancellation checks (and so
	// without CallTimeout): calls run about 7x faster, but a call cannot
	// be stopped once started. Only for a host with its own watchdog that
	// ends the whole process on an overrun (the daemon, a hook process),
	// and not on a Go timer: a garbage collection waits for the running
	// call, and everything else in the process, timers too, waits with it
	// (package watchdog).
	NoInterrupt bool
	// HandOnCold is for a caller that can give its work to another
	// process (a hook with a finisher): when another process holds the
	// compile lock, the load returns ErrCold at once instead of waiting
	// for that compilation. Sixty-four first hooks at once then answer in
	// milliseconds rather than all loading the module together once it is
	// compiled, past their deadlines.
	HandOnCold bool
}

// CallTimeoutFor is the bound of one interruptible call on a payload of
// n bytes: base, plus a second per MiB. Interruptible calls run at a few
// MB/s at worst on a loaded machine; a bound that ignored the size would
// stop every large response, not just a looping guest.
func CallTimeoutFor(base time.Duration, n int) time.Duration {
	return base + time.Duration(n>>20)*time.Second
}

// initBytes sizes the bound of an instance's first call (CallTimeoutFor).
const initBytes = 30 << 20

// Runner is one loaded, validated plugin instance. It is not safe for
// concurrent use.
type Runner struct {
	compiled *extism.CompiledPlugin
	inst     *extism.Plugin
	shared   bool // compiled belongs to a Compiled, not to this Runner
	raw      bool // the plugin has ctxhook_prepare_raw
	fd       bool // the plugin has the fd exports
	warm     bool // the plugin has ctxhook_warm
	timeout  time.Duration
	io       *guestIO
	mem      *memoryWatch
	broken   error
}

// Compiled is a compiled plugin that hands out instances sharing its
// code: a long-lived host with several instances keeps one copy of the
// compiled module, and a fresh instance costs an instantiation, not a load.
type Compiled struct {
	compiled *extism.CompiledPlugin
	timeout  time.Duration
}

// Compile loads the plugin once for many instances.
func Compile(ctx context.Context, o Options) (*Compiled, error) {
	compiled, timeout, err := compile(ctx, o)
	if err != nil {
		return nil, err
	}
	c := &Compiled{compiled: compiled, timeout: timeout}
	r, err := c.Instance(ctx) // validated once; instances come from Instance
	if err != nil {
		compiled.Close(ctx)
		return nil, err
	}
	r.Close(ctx)
	return c, nil
}

// Instance returns a new validated instance of c.
func (c *Compiled) Instance(ctx context.Context) (*Runner, error) {
	r, err := instance(ctx, c.compiled, c.timeout)
	if err != nil {
		return nil, err
	}
	r.shared = true
	return r, nil
}

// Close releases the compiled code (after every instance is closed).
func (c *Compiled) Close(ctx context.Context) error { return c.compiled.Close(ctx) }

// New loads and validates the plugin.
func New(ctx context.Context, o Options) (*Runner, error) {
	compiled, timeout, err := compile(ctx, o)
	if err != nil {
		return nil, err
	}
	r, err := instance(ctx, compiled, timeout)
	if err != nil {
		compiled.Close(ctx)
		return nil, err
	}
	return r, nil
}

func compile(ctx context.Context, o Options) (*extism.CompiledPlugin, time.Duration, error) {
	// The guest must never write to our stdout: that is the harness's
	// channel. The SDK wires guest output to ours when this is set.
	os.Unsetenv("EXTISM_ENABLE_WASI_OUTPUT")

	wasm := o.Wasm
	if wasm == nil {
		wasm = plugin.Wasm
	}
	timeout := o.CallTimeout
	if timeout == 0 {
		timeout = 2 * time.Second
	}
	pages := o.MaxMemoryPages
	if pages == 0 {
		pages = DefaultMaxMemoryPages
	}
	rc := wazero.NewRuntimeConfig().WithCloseOnContextDone(!o.NoInterrupt)
	if o.NoInterrupt {
		timeout = 0
	}
	cached := false
	if o.CacheDir != "" {
		platform.PrivateFiles()
		if err := platform.MayCreate(o.CacheDir); err != nil {
			warn(o, "ctxhook: not using the compilation cache ("+err.Error()+"): the plugin is compiled in memory, which takes longer")
		} else if err := os.MkdirAll(o.CacheDir, 0o700); err == nil && safeCache(o) {
			if cache, err := wazero.NewCompilationCacheWithDir(o.CacheDir); err == nil {
				rc = rc.WithCompilationCache(cache)
				cached = true
			}
		}
	}
	lastCached.Store(cached)
	// The timeout is per instance (Runner.call sets it per call), so the
	// manifest carries none.
	manifest := extism.Manifest{
		Wasm:   []extism.Wasm{extism.WasmData{Data: wasm, Name: "main"}},
		Memory: &extism.ManifestMemory{MaxPages: pages},
	}
	var release func(bool)
	if cached {
		var err error
		if release, err = coldLock(ctx, o.CacheDir, wasm, o.NoInterrupt, !o.HandOnCold); err != nil {
			return nil, 0, err
		}
	}
	began := time.Now()
	compiled, err := extism.NewCompiledPlugin(ctx, manifest, extism.PluginConfig{EnableWasi: true, RuntimeConfig: rc}, nil)
	if release != nil || !cached {
		logCompile(o.NoInterrupt, time.Since(began))
	}
	if release != nil {
		release(err == nil)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("runner: compile plugin: %w", err)
	}
	return compiled, timeout, nil
}

// lastCached records whether the last compile used the cache, for the
// tests that plant entries in it.
var lastCached atomic.Bool

// LastCompileCached reports whether the most recent compile in this
// process used the compilation cache.
func LastCompileCached() bool { return lastCached.Load() }

// safeCache reports whether the compilation cache may be used: the
// directory is this user's and no one else's (platform.OwnedDir), and so is every
// entry in it. An unsafe entry in a safe directory (one written under a
// group-writable umask, or planted while the directory was open to
// others) cannot be told from a tampered one: the entries are removed and
// the cache starts again empty. A directory that is not the user's is not
// touched, and the plugin is compiled in memory.
func safeCache(o Options) bool {
	unused := func(err error) bool {
		warn(o, fmt.Sprintf("ctxhook: not using the compilation cache (%v): the plugin is compiled in memory, which takes longer", err))
		return false
	}
	if err := platform.OwnedDir(o.CacheDir); err != nil {
		return unused(err)
	}
	err := platform.OwnedTree(o.CacheDir, 3)
	if err == nil {
		return true
	}
	entries, _ := os.ReadDir(o.CacheDir)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(o.CacheDir, e.Name()))
	}
	if err2 := platform.OwnedTree(o.CacheDir, 3); err2 != nil {
		return unused(err2)
	}
	warn(o, fmt.Sprintf("ctxhook: emptied the compilation cache, which held an entry that was not safe to run (%v)", err))
	return true
}

func warn(o Options, msg string) {
	if o.Warn != nil {
		o.Warn(msg)
		return
	}
	fmt.Fprintln(os.Stderr, msg)
}

func instance(ctx context.Context, compiled *extism.CompiledPlugin, timeout time.Duration) (*Runner, error) {
	gio := &guestIO{}
	mem := &memoryWatch{}
	mc := wazero.NewModuleConfig().WithStdin(gio).WithStdout(&gio.out).WithStderr(io.Discard)
	if alloc := newAllocator(mem); alloc != nil {
		ctx = experimental.WithMemoryAllocator(ctx, alloc)
	}
	inst, err := compiled.Instance(ctx, extism.PluginInstanceConfig{ModuleConfig: mc})
	if err != nil {
		return nil, fmt.Errorf("runner: instantiate plugin: %w", err)
	}
	r := &Runner{compiled: compiled, inst: inst, timeout: timeout, io: gio, mem: mem}
	if err := r.validate(ctx); err != nil {
		r.Close(ctx)
		return nil, err
	}
	return r, nil
}

func (r *Runner) validate(ctx context.Context) error {
	var missing []string
	for _, name := range abi.RequiredExports {
		if !r.inst.FunctionExists(name) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s", ErrMissingExport, strings.Join(missing, ", "))
	}
	r.raw = r.inst.FunctionExists(abi.ExportPrepareRaw)
	r.fd = r.inst.FunctionExists(abi.ExportPrepareFD) && r.inst.FunctionExists(abi.ExportHandleFD)
	r.warm = r.inst.FunctionExists(abi.ExportWarm)
	// The first call also starts the guest's Go runtime and runs its
	// package initialisers, which no input can make loop: it gets the
	// bound of a large payload, so a loaded machine does not fail it.
	out, err := r.call(ctx, abi.ExportABIVersion, nil, initBytes)
	if err != nil {
		return err
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || v != abi.Version {
		return fmt.Errorf("%w: plugin speaks ABI %q, this host speaks ABI %d", ErrABIVersion, out, abi.Version)
	}
	return nil
}

// Close releases the instance and the runtime.
func (r *Runner) Close(ctx context.Context) error {
	r.inst.Close(ctx)
	if r.shared {
		return nil
	}
	return r.compiled.Close(ctx)
}

// Broken is the error that left this instance unusable (a trap, a call
// stopped at its timeout, a guest out of memory), or nil. A host replaces
// a broken instance before its next call: one failure touches one message.
func (r *Runner) Broken() error { return r.broken }

// MemoryBytes is the guest's linear memory, its high-water mark: wasm
// memory never shrinks, so a long-lived host replaces an instance that
// grew large (after one big payload) between calls. 0 when unknown.
func (r *Runner) MemoryBytes() int64 { return r.mem.bytes() }

// call calls an export; n is the size of the bulk input, for the bound
// of an interruptible call.
func (r *Runner) call(ctx context.Context, name string, in []byte, n int) ([]byte, error) {
	if r.broken != nil {
		return nil, fmt.Errorf("%w: %s: instance unusable after an earlier failure: %v", ErrCall, name, r.broken)
	}
	if r.timeout > 0 {
		r.inst.Timeout = CallTimeoutFor(r.timeout, n+len(in))
	}
	rc, out, err := r.inst.CallWithContext(ctx, name, in)
	if err != nil {
		err = fmt.Errorf("%w: %s: %v", ErrCall, name, err)
		// An error the plugin reported leaves the instance sound; a trap,
		// a timeout or a closed module does not.
		if isFatal(err) {
			r.broken = err
		}
		return nil, err
	}
	if rc != 0 {
		return nil, fmt.Errorf("%w: %s returned %d", ErrCall, name, rc)
	}
	return out, nil
}

// isFatal tells an error that ended the instance from one the guest
// reported: the SDK gives both with rc 1 and tells them apart only by
// text. A guest message that happens to contain these words costs one
// needless replacement, nothing more.
func isFatal(err error) bool {
	s := err.Error()
	for _, w := range []string{"wasm error", "module closed", "module is closed", "deadline exceeded", "context canceled", "exit code"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// Warm runs the plugin's warm-up (abi.ExportWarm) when it has one: the
// instance's first real decision then costs what every later one does,
// about a third of an unwarmed first one. A long-lived host calls it on
// each new instance before the instance is needed. It decides nothing.
func (r *Runner) Warm(ctx context.Context) error {
	if !r.warm {
		return nil
	}
	_, err := r.call(ctx, abi.ExportWarm, nil, initBytes)
	return err
}

// CallRaw calls an export with raw bytes; tests use it to compare the
// wasm's bytes with the native engine's.
func (r *Runner) CallRaw(ctx context.Context, export string, in []byte) ([]byte, error) {
	return r.call(ctx, export, in, 0)
}

// Prepare asks which state keys a hook needs. The payload goes in raw
// (over WASI stdin, or after a header with ctxhook_prepare_raw) when the
// plugin can take it so.
func (r *Runner) Prepare(ctx context.Context, req abi.PrepareRequest) (abi.PrepareResponse, error) {
	var resp abi.PrepareResponse
	switch {
	case r.fd:
		hdr, err := json.Marshal(abi.PrepareRequest{Harness: req.Harness, Event: req.Event, PayloadBytes: len(req.Payload)})
		if err != nil {
			return resp, fmt.Errorf("runner: encode %s request: %w", abi.ExportPrepareFD, err)
		}
		r.io.set(req.Payload)
		out, err := r.call(ctx, abi.ExportPrepareFD, hdr, len(req.Payload))
		r.io.reset()
		if err != nil {
			return resp, err
		}
		if err := json.Unmarshal(out, &resp); err != nil {
			return resp, fmt.Errorf("%w: %s: decode response: %v", ErrCall, abi.ExportPrepareFD, err)
		}
		return resp, nil
	case r.raw:
		hdr, err := json.Marshal(abi.PrepareRequest{Harness: req.Harness, Event: req.Event})
		if err != nil {
			return resp, fmt.Errorf("runner: encode %s header: %w", abi.ExportPrepareRaw, err)
		}
		in := make([]byte, 0, len(hdr)+1+len(req.Payload))
		in = append(append(append(in, hdr...), '\n'), req.Payload...)
		out, err := r.call(ctx, abi.ExportPrepareRaw, in, 0)
		if err != nil {
			return resp, err
		}
		if err := json.Unmarshal(out, &resp); err != nil {
			return resp, fmt.Errorf("%w: %s: decode response: %v", ErrCall, abi.ExportPrepareRaw, err)
		}
		return resp, nil
	}
	return resp, r.roundTrip(ctx, abi.ExportPrepare, req, &resp)
}

// Handle asks for the decision and effects of a hook. With req.Prepared
// set (from the Prepare just before on this Runner) the payload is not
// sent again; should the plugin no longer hold it, Handle sends it.
func (r *Runner) Handle(ctx context.Context, req abi.HandleRequest) (abi.HandleResponse, error) {
	var resp abi.HandleResponse
	if req.Prepared != "" {
		lean := req
		lean.Payload = ""
		// The guest works on the prepared payload: the call's bound is
		// still that of its size.
		resp, err := r.handle(ctx, lean, len(req.Payload))
		if err == nil || !strings.Contains(err.Error(), abi.ErrNotPrepared) {
			return resp, err
		}
		req.Prepared = ""
	}
	resp, err := r.handle(ctx, req, 0)
	return resp, err
}

// handle calls the handle export; work is the size of a payload the
// guest holds already (prepared), for the bound of an interruptible call.
func (r *Runner) handle(ctx context.Context, req abi.HandleRequest, work int) (abi.HandleResponse, error) {
	var resp abi.HandleResponse
	if !r.fd {
		return resp, r.roundTrip(ctx, abi.ExportHandle, req, &resp)
	}
	payload := req.Payload
	req.Payload, req.PayloadBytes = "", len(payload)
	bulk := []string{payload}
	n := max(len(payload), work)
	if len(req.Files) > 0 {
		files := make([]abi.File, len(req.Files))
		copy(files, req.Files)
		for i := range files {
			bulk = append(bulk, files[i].Content)
			n += len(files[i].Content)
			files[i].Bytes, files[i].Content = len(files[i].Content), ""
		}
		req.Files = files
	}
	hdr, err := json.Marshal(req)
	if err != nil {
		return resp, fmt.Errorf("runner: encode %s request: %w", abi.ExportHandleFD, err)
	}
	r.io.set(bulk...)
	out, err := r.call(ctx, abi.ExportHandleFD, hdr, n)
	blobs := r.io.take()
	if err != nil {
		return resp, err
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return resp, fmt.Errorf("%w: %s: decode response: %v", ErrCall, abi.ExportHandleFD, err)
	}
	if err := abi.AttachBlobs(&resp, blobs); err != nil {
		return resp, fmt.Errorf("%w: %s: %v", ErrCall, abi.ExportHandleFD, err)
	}
	return resp, nil
}

func (r *Runner) roundTrip(ctx context.Context, export string, req, resp any) error {
	in, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("runner: encode %s request: %w", export, err)
	}
	out, err := r.call(ctx, export, in, 0)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, resp); err != nil {
		return fmt.Errorf("%w: %s: decode response: %v", ErrCall, export, err)
	}
	return nil
}

// guestIO is an instance's WASI standard input and output: the bulk
// bytes of the current call. The instance is not used concurrently, so
// one of each per instance serves every call.
type guestIO struct {
	in  []string // what the guest reads next, in order
	out blobBuffer
}

func (g *guestIO) Read(p []byte) (int, error) {
	for len(g.in) > 0 && g.in[0] == "" {
		g.in = g.in[1:]
	}
	if len(g.in) == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.in[0])
	g.in[0] = g.in[0][n:]
	return n, nil
}

func (g *guestIO) set(bulk ...string) {
	g.in = bulk
	g.out.b = g.out.b[:0]
}

// blobBuffer collects what the guest writes: the answer's large strings,
// each in one write. A write that does not fit gets a buffer of exactly
// what it needs (or twice the old, if more), not cleared first: a 64 MiB
// answer in a buffer grown by doubling, or sized and cleared ahead, cost
// hundreds of milliseconds of copying and first touches of pages here.
type blobBuffer struct{ b []byte }

func (w *blobBuffer) Write(p []byte) (int, error) {
	if need := len(w.b) + len(p); need > cap(w.b) {
		nb := platform.BigBuffer(max(need, 2*cap(w.b)))
		w.b = nb[:copy(nb, w.b)]
	}
	w.b = append(w.b, p...)
	return len(p), nil
}

func (g *guestIO) reset() {
	g.in = nil
	g.out.b = g.out.b[:0]
}

// take hands over what the guest wrote (the answer's strings point into
// it); the next call's output goes to a new buffer.
func (g *guestIO) take() []byte {
	b := g.out.b
	g.in = nil
	g.out.b = nil
	return b
}

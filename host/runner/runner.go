// Package runner loads plugin.wasm through the Extism Go SDK (wazero) and
// calls its exports. It is the only way host code reaches a decision.
//
// Loading validates the module: every export in abi.RequiredExports must
// exist and ctxhook_abi_version must equal abi.Version, else New fails with
// an error naming what is wrong. Compiled code is cached on disk, so only
// the first process after an install or upgrade pays for compilation.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/plugin"
	"github.com/ctxhook/ctxhook/plugin/abi"
	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
)

// Errors a caller can tell apart with errors.Is.
var (
	ErrMissingExport = errors.New("runner: plugin lacks required exports")
	ErrABIVersion    = errors.New("runner: plugin ABI version mismatch")
	ErrCall          = errors.New("runner: plugin call failed")
)

// Options tune a Runner. Zero values are sane defaults.
type Options struct {
	// Wasm is the module; nil means the embedded plugin.Wasm.
	Wasm []byte
	// CacheDir holds wazero's compilation cache; "" disables it.
	CacheDir string
	// CallTimeout bounds each export call (default 2 s), so a guest stuck
	// in a loop is stopped. It is not free: wazero then checks for
	// cancellation throughout the guest's code, which measured 7x slower
	// per call on a 6 KB payload (2.6 ms to 18 ms warm); see RATIONALE.md.
	CallTimeout time.Duration
	// MaxMemoryPages caps guest memory in 64 KiB pages (default 4096 = 256 MiB).
	MaxMemoryPages uint32
	// NoInterrupt compiles the guest without cancellation checks (and so
	// without CallTimeout): calls run about 7x faster, but a call cannot
	// be stopped once started. Only for a host with its own watchdog that
	// ends the whole process on an overrun (the daemon, a hook process),
	// and not on a Go timer: a garbage collection waits for the running
	// call, and everything else in the process, timers too, waits with it
	// (package watchdog).
	NoInterrupt bool
}

// Runner is one loaded, validated plugin instance. It is not safe for
// concurrent use.
type Runner struct {
	compiled *extism.CompiledPlugin
	inst     *extism.Plugin
	shared   bool // compiled belongs to a Compiled, not to this Runner
	raw      bool // the plugin has ctxhook_prepare_raw
}

// Compiled is a compiled plugin that hands out instances sharing its
// code: a long-lived host with several instances keeps one copy of the
// compiled module, and a fresh instance costs an instantiation, not a load.
type Compiled struct {
	compiled *extism.CompiledPlugin
}

// Compile loads the plugin once for many instances.
func Compile(ctx context.Context, o Options) (*Compiled, error) {
	r, err := New(ctx, o)
	if err != nil {
		return nil, err
	}
	r.inst.Close(ctx) // validated; instances come from Instance
	return &Compiled{compiled: r.compiled}, nil
}

// Instance returns a new validated instance of c.
func (c *Compiled) Instance(ctx context.Context) (*Runner, error) {
	inst, err := c.compiled.Instance(ctx, extism.PluginInstanceConfig{})
	if err != nil {
		return nil, fmt.Errorf("runner: instantiate plugin: %w", err)
	}
	r := &Runner{compiled: c.compiled, inst: inst, shared: true}
	if err := r.validate(ctx); err != nil {
		r.Close(ctx)
		return nil, err
	}
	return r, nil
}

// Close releases the compiled code (after every instance is closed).
func (c *Compiled) Close(ctx context.Context) error { return c.compiled.Close(ctx) }

// New loads and validates the plugin.
func New(ctx context.Context, o Options) (*Runner, error) {
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
		pages = 4096
	}
	rc := wazero.NewRuntimeConfig().WithCloseOnContextDone(!o.NoInterrupt)
	if o.NoInterrupt {
		timeout = 0
	}
	cached := false
	if o.CacheDir != "" {
		if err := os.MkdirAll(o.CacheDir, 0o700); err == nil {
			if cache, err := wazero.NewCompilationCacheWithDir(o.CacheDir); err == nil {
				rc = rc.WithCompilationCache(cache)
				cached = true
			}
		}
	}
	manifest := extism.Manifest{
		Wasm:    []extism.Wasm{extism.WasmData{Data: wasm, Name: "main"}},
		Timeout: uint64(timeout.Milliseconds()),
		Memory:  &extism.ManifestMemory{MaxPages: pages},
	}
	var release func(bool)
	if cached {
		release = coldLock(ctx, o.CacheDir, wasm)
	}
	compiled, err := extism.NewCompiledPlugin(ctx, manifest, extism.PluginConfig{EnableWasi: true, RuntimeConfig: rc}, nil)
	if release != nil {
		release(err == nil)
	}
	if err != nil {
		return nil, fmt.Errorf("runner: compile plugin: %w", err)
	}
	inst, err := compiled.Instance(ctx, extism.PluginInstanceConfig{})
	if err != nil {
		compiled.Close(ctx)
		return nil, fmt.Errorf("runner: instantiate plugin: %w", err)
	}
	r := &Runner{compiled: compiled, inst: inst}
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
	out, err := r.call(ctx, abi.ExportABIVersion, nil)
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

func (r *Runner) call(ctx context.Context, name string, in []byte) ([]byte, error) {
	rc, out, err := r.inst.CallWithContext(ctx, name, in)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCall, name, err)
	}
	if rc != 0 {
		return nil, fmt.Errorf("%w: %s returned %d", ErrCall, name, rc)
	}
	return out, nil
}

// CallRaw calls an export with raw bytes; tests use it to compare the
// wasm's bytes with the native engine's.
func (r *Runner) CallRaw(ctx context.Context, export string, in []byte) ([]byte, error) {
	return r.call(ctx, export, in)
}

// Prepare asks which state keys a hook needs. The payload goes in raw
// (ctxhook_prepare_raw) when the plugin has that export.
func (r *Runner) Prepare(ctx context.Context, req abi.PrepareRequest) (abi.PrepareResponse, error) {
	var resp abi.PrepareResponse
	if !r.raw {
		return resp, r.roundTrip(ctx, abi.ExportPrepare, req, &resp)
	}
	hdr, err := json.Marshal(abi.PrepareRequest{Harness: req.Harness, Event: req.Event})
	if err != nil {
		return resp, fmt.Errorf("runner: encode %s header: %w", abi.ExportPrepareRaw, err)
	}
	in := make([]byte, 0, len(hdr)+1+len(req.Payload))
	in = append(append(append(in, hdr...), '\n'), req.Payload...)
	out, err := r.call(ctx, abi.ExportPrepareRaw, in)
	if err != nil {
		return resp, err
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return resp, fmt.Errorf("%w: %s: decode response: %v", ErrCall, abi.ExportPrepareRaw, err)
	}
	return resp, nil
}

// Handle asks for the decision and effects of a hook. With req.Prepared
// set (from the Prepare just before on this Runner) the payload is not
// sent again; should the plugin no longer hold it, Handle sends it.
func (r *Runner) Handle(ctx context.Context, req abi.HandleRequest) (abi.HandleResponse, error) {
	var resp abi.HandleResponse
	if req.Prepared != "" {
		lean := req
		lean.Payload = ""
		err := r.roundTrip(ctx, abi.ExportHandle, lean, &resp)
		if err == nil || !strings.Contains(err.Error(), abi.ErrNotPrepared) {
			return resp, err
		}
		req.Prepared = ""
	}
	return resp, r.roundTrip(ctx, abi.ExportHandle, req, &resp)
}

func (r *Runner) roundTrip(ctx context.Context, export string, req, resp any) error {
	in, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("runner: encode %s request: %w", export, err)
	}
	out, err := r.call(ctx, export, in)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, resp); err != nil {
		return fmt.Errorf("%w: %s: decode response: %v", ErrCall, export, err)
	}
	return nil
}

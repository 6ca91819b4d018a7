package runner

import (
	"context"
	"os"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

func benchPayload(b *testing.B) string {
	p, err := os.ReadFile("../../testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json")
	if err != nil {
		b.Fatal(err)
	}
	return string(p)
}

// BenchmarkLoadCached is what every cold hook process pays before its
// first decision: decode, validate and load the cached compiled module,
// instantiate it and check its ABI version.
func BenchmarkLoadCached(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	r, err := New(ctx, Options{CacheDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	r.Close(ctx)
	for b.Loop() {
		r, err := New(ctx, Options{CacheDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		r.Close(ctx)
	}
}

// BenchmarkHandleWarm is one PostToolUse decision in a warm instance:
// interruptible (the in-process path) and not (the daemon's).
func BenchmarkHandleWarm(b *testing.B) {
	for _, noInterrupt := range []bool{false, true} {
		b.Run(map[bool]string{false: "interruptible", true: "daemon"}[noInterrupt], func(b *testing.B) {
			ctx := context.Background()
			r, err := New(ctx, Options{CacheDir: b.TempDir(), NoInterrupt: noInterrupt})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close(ctx)
			req := abi.HandleRequest{Harness: abi.HarnessClaudeCode, Payload: benchPayload(b),
				Config: abi.Config{Servers: map[string]abi.ServerConfig{"tickets": {Relay: true}}}}
			b.SetBytes(int64(len(req.Payload)))
			for b.Loop() {
				if _, err := r.Handle(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPrepareWarm: the same payload in, a few bytes out.
func BenchmarkPrepareWarm(b *testing.B) {
	ctx := context.Background()
	r, err := New(ctx, Options{CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close(ctx)
	req := abi.PrepareRequest{Harness: abi.HarnessClaudeCode, Payload: benchPayload(b)}
	b.SetBytes(int64(len(req.Payload)))
	for b.Loop() {
		if _, err := r.Prepare(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

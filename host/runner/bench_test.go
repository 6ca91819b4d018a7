package runner

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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

// cleanText is 64 KiB of clean payload: Go standard library sources and
// lines shaped like a tracker's JSON. plugin/internal/redact's corpus tests
// hold the redactor to no false positive on text like it.
func cleanText(b *testing.B) string {
	var buf strings.Builder
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "strings", "*.go"))
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil && !strings.HasSuffix(f, "_test.go") && buf.Len() < 32<<10 {
			buf.Write(data)
		}
	}
	if buf.Len() < 16<<10 {
		b.Skip("Go's sources are not here")
	}
	for i := 0; buf.Len() < 64<<10; i++ {
		fmt.Fprintf(&buf, `{"id": "TCK-%d", "commit": "%040x", "url": "https://tracker.example.com/browse/TCK-%d", "body": "the key rotation job ran after the token bucket limiter rejected requests", "token_count": %d}`+"\n", i, i*7919, i, i*13)
	}
	return buf.String()[:64<<10]
}

// BenchmarkHandleClean64K is a whole PostToolUse decision, redaction
// included, on a 64 KiB clean response inside plugin.wasm (as the daemon
// runs it).
func BenchmarkHandleClean64K(b *testing.B) {
	ctx := context.Background()
	r, err := New(ctx, Options{CacheDir: b.TempDir(), NoInterrupt: true})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close(ctx)
	text, _ := json.Marshal([]map[string]string{{"type": "text", "text": cleanText(b)}})
	payload, _ := json.Marshal(map[string]any{"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "mcp__tickets__get",
		"tool_input": map[string]string{"id": "1"}, "tool_response": json.RawMessage(text)})
	req := abi.HandleRequest{Harness: abi.HarnessClaudeCode, Payload: string(payload),
		Config: abi.Config{Shaping: abi.ShapingConfig{ThresholdBytes: -1}}}
	r.Handle(ctx, req)
	b.SetBytes(64 << 10)
	for b.Loop() {
		if _, err := r.Handle(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHandleOwn64K is BenchmarkHandleClean64K with ten of ctxhook's
// own values handed over (the hook secret and nine relay tokens), each
// redacted by any 12-byte run.
func BenchmarkHandleOwn64K(b *testing.B) {
	ctx := context.Background()
	r, err := New(ctx, Options{CacheDir: b.TempDir(), NoInterrupt: true})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close(ctx)
	text, _ := json.Marshal([]map[string]string{{"type": "text", "text": cleanText(b)}})
	payload, _ := json.Marshal(map[string]any{"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "mcp__tickets__get",
		"tool_input": map[string]string{"id": "1"}, "tool_response": json.RawMessage(text)})
	var env []string
	for i := range 10 {
		env = append(env, fmt.Sprintf("CTXHOOK_OWN_%d_TOKEN=%x", i, sha256.Sum256([]byte(fmt.Sprint(i)))))
	}
	req := abi.HandleRequest{Harness: abi.HarnessClaudeCode, Payload: string(payload), Environ: env,
		Config: abi.Config{Shaping: abi.ShapingConfig{ThresholdBytes: -1}}}
	r.Handle(ctx, req)
	b.SetBytes(64 << 10)
	for b.Loop() {
		if _, err := r.Handle(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

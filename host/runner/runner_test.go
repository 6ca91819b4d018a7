package runner

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/internal/bigpayload"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

func TestLoadEmbedded(t *testing.T) {
	ctx := context.Background()
	r, err := New(ctx, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	payload, err := os.ReadFile("../../testdata/payloads/claude-code/2.1.330/hook-PreToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := r.Prepare(ctx, abi.PrepareRequest{Harness: abi.HarnessClaudeCode, Event: "PreToolUse", Payload: string(payload)})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.StateKeys) != 1 || resp.StateKeys[0] != "session/4ffc612f-1359-4fb4-bc20-454b9b7c872e" {
		t.Fatalf("state keys = %v", resp.StateKeys)
	}
	// A plugin error is an error, not a panic or a silent empty answer.
	if _, err := r.Handle(ctx, abi.HandleRequest{Harness: "nope", Payload: "{}"}); !errors.Is(err, ErrCall) {
		t.Fatalf("bad harness: err = %v, want ErrCall", err)
	}
}

func TestRejectsModuleWithoutExports(t *testing.T) {
	// The smallest valid module: magic and version, no exports at all.
	empty := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	_, err := New(context.Background(), Options{Wasm: empty})
	if !errors.Is(err, ErrMissingExport) {
		t.Fatalf("err = %v, want ErrMissingExport", err)
	}
	for _, name := range abi.RequiredExports {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
}

// TestPreparedCallBound: an interruptible handle call on a payload the
// guest holds from prepare is bounded by that payload's size, as the
// prepare call was, not by the base alone (a 35 MiB hook finished in the
// background was stopped after 2 s and its event lost).
func TestPreparedCallBound(t *testing.T) {
	ctx := context.Background()
	r, err := New(ctx, Options{CacheDir: t.TempDir(), CallTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	payload := string(bigpayload.ClaudePostToolUse(4<<20, "zqbound", "s-bound", "toolu_bound"))
	prep, err := r.Prepare(ctx, abi.PrepareRequest{Harness: abi.HarnessClaudeCode, Event: "PostToolUse", Payload: payload})
	if err != nil {
		t.Fatal(err)
	}
	if prep.Prepared == "" {
		t.Fatal("prepare kept nothing: the test would not reach the prepared path")
	}
	resp, err := r.Handle(ctx, abi.HandleRequest{Harness: abi.HarnessClaudeCode, Event: "PostToolUse", Payload: payload,
		Prepared: prep.Prepared, NowMS: 1})
	if err != nil {
		t.Fatalf("handle on the prepared payload: %v", err)
	}
	if len(resp.Effects) == 0 {
		t.Fatal("no effects: the event was not decided")
	}
}

// TestWarmChangesNothing: a warmed instance decides a hook exactly as an
// unwarmed one does, a payload prepared before the warm-up is still held
// after it, and plugin.wasm has the export (the daemon and the proxy
// warm every instance they make ahead of need; without the export they
// would silently stop doing so).
func TestWarmChangesNothing(t *testing.T) {
	ctx := context.Background()
	payload, err := os.ReadFile("../../testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	decideOn := func(warm bool) abi.HandleResponse {
		r, err := New(ctx, Options{CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close(ctx)
		if !r.warm {
			t.Fatal("plugin.wasm has no " + abi.ExportWarm)
		}
		prep, err := r.Prepare(ctx, abi.PrepareRequest{Harness: abi.HarnessClaudeCode, Event: "PostToolUse", Payload: string(payload)})
		if err != nil {
			t.Fatal(err)
		}
		if warm {
			if err := r.Warm(ctx); err != nil {
				t.Fatal(err)
			}
		}
		req := abi.HandleRequest{Harness: abi.HarnessClaudeCode, Event: "PostToolUse", Payload: string(payload), Prepared: prep.Prepared,
			NowMS: 1_700_000_000_000, RequestID: "r1", Config: abi.Config{Servers: map[string]abi.ServerConfig{"tickets": {Relay: true}}}}
		// Sent without the payload: a warm-up that dropped the prepared
		// one would fail it with ErrNotPrepared.
		lean := req
		lean.Payload = ""
		resp, err := r.handle(ctx, lean, len(payload))
		if err != nil {
			t.Fatalf("warm=%v: %v", warm, err)
		}
		return resp
	}
	cold, warm := decideOn(false), decideOn(true)
	if cold.Stdout != warm.Stdout || len(cold.Effects) != len(warm.Effects) {
		t.Fatalf("a warmed instance decided otherwise:\ncold %q (%d effects)\nwarm %q (%d effects)", cold.Stdout, len(cold.Effects), warm.Stdout, len(warm.Effects))
	}
	for i := range cold.Effects {
		c, w := cold.Effects[i], warm.Effects[i]
		if c.Op != w.Op || c.Key != w.Key || c.Value != w.Value || c.Name != w.Name || (c.Event == nil) != (w.Event == nil) ||
			c.Event != nil && (c.Event.Response != w.Event.Response || c.Event.Text != w.Event.Text || c.Event.Key != w.Event.Key) {
			t.Fatalf("effect %d differs after a warm-up:\ncold %+v\nwarm %+v", i, c, w)
		}
	}
}

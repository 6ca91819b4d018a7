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

package plugin_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/plugin"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/conformance"
	"github.com/ctxhook/ctxhook/plugin/internal/engine"
)

var update = flag.Bool("update", false, "rewrite the expected files of the conformance corpus")

func loadWasm(t *testing.T) *runner.Runner {
	t.Helper()
	r, err := runner.New(context.Background(), runner.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	return r
}

// TestConformance runs the whole corpus natively and through the real
// plugin.wasm, requires byte-identical answers from both, and compares them
// with the expected files.
func TestConformance(t *testing.T) {
	cases, err := conformance.Load("../testdata/conformance")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("empty corpus")
	}
	wasm := loadWasm(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			in, err := json.Marshal(c.Request)
			if err != nil {
				t.Fatal(err)
			}
			// The wasm's raw bytes, as any Extism host receives them.
			wasmOut, wasmErr := wasm.CallRaw(context.Background(), abi.ExportHandle, in)
			// The native engine, encoded the way the guest encodes.
			resp, nativeErr := engine.Handle(c.Request)
			var nativeOut []byte
			if nativeErr == nil {
				nativeOut, _ = json.Marshal(resp)
			}
			if (wasmErr == nil) != (nativeErr == nil) {
				t.Fatalf("native err = %v, wasm err = %v", nativeErr, wasmErr)
			}
			if nativeErr == nil && !bytes.Equal(nativeOut, wasmOut) {
				t.Fatalf("native and wasm differ (stale plugin.wasm? run make plugin):\n%s", firstDiff(nativeOut, wasmOut))
			}
			if nativeErr != nil && !strings.Contains(wasmErr.Error(), nativeErr.Error()) {
				t.Fatalf("errors differ: native %q, wasm %q", nativeErr, wasmErr)
			}
			o := conformance.Outcome{Response: resp, Err: nativeErr}
			if *update {
				if err := c.Update(o); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, d := range c.Check(o) {
				t.Error(d)
			}
		})
	}
}

func TestEmbeddedDigest(t *testing.T) {
	sum := sha256.Sum256(plugin.Wasm)
	if got, want := hex.EncodeToString(sum[:]), strings.TrimSpace(plugin.SHA256); got != want {
		t.Fatalf("plugin.wasm sha256 %s, plugin.wasm.sha256 says %s: rebuild with make plugin", got, want)
	}
}

// firstDiff shows where two byte strings first differ, with context.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(i-60, 0)
	return fmt.Sprintf("at byte %d:\nnative …%s\nwasm   …%s", i, a[lo:min(i+60, len(a))], b[lo:min(i+60, len(b))])
}

// TestPreparedMatchesPayload: over the whole corpus, ctxhook_prepare_raw
// then ctxhook_handle with the prepared handle (no payload) gives the
// bytes ctxhook_handle gives with the payload; a handle naming a payload
// the instance does not hold is refused with abi.ErrNotPrepared, never
// answered from another payload.
func TestPreparedMatchesPayload(t *testing.T) {
	cases, err := conformance.Load("../testdata/conformance")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	wasm := loadWasm(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			in, _ := json.Marshal(c.Request)
			want, wantErr := wasm.CallRaw(ctx, abi.ExportHandle, in)
			hdr, _ := json.Marshal(abi.PrepareRequest{Harness: c.Request.Harness, Event: c.Request.Event})
			out, err := wasm.CallRaw(ctx, abi.ExportPrepareRaw, append(append(hdr, '\n'), c.Request.Payload...))
			if err != nil {
				if wantErr == nil {
					t.Fatalf("prepare_raw failed (%v) where handle answers", err)
				}
				return
			}
			var prep abi.PrepareResponse
			if err := json.Unmarshal(out, &prep); err != nil || prep.Prepared == "" {
				t.Fatalf("prepare_raw answered %s (%v)", out, err)
			}
			lean := c.Request
			lean.Payload, lean.Prepared = "", prep.Prepared
			in, _ = json.Marshal(lean)
			got, gotErr := wasm.CallRaw(ctx, abi.ExportHandle, in)
			if (gotErr == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
				t.Fatalf("prepared: %s (%v)\npayload: %s (%v)", got, gotErr, want, wantErr)
			}
			// The handle is used up: the same request again is refused.
			if _, err := wasm.CallRaw(ctx, abi.ExportHandle, in); err == nil || !strings.Contains(err.Error(), abi.ErrNotPrepared) {
				t.Fatalf("second use of %s: %v, want %q", prep.Prepared, err, abi.ErrNotPrepared)
			}
		})
	}
	// The Runner falls back to sending the payload.
	c := cases[0]
	want, err := wasm.Handle(ctx, c.Request)
	if err != nil {
		t.Fatal(err)
	}
	stale := c.Request
	stale.Prepared = "p999999"
	got, err := wasm.Handle(ctx, stale)
	if err != nil || got.Stdout != want.Stdout || len(got.Effects) != len(want.Effects) {
		t.Fatalf("fallback: %+v (%v), want %+v", got, err, want)
	}
}

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

//go:build unix

package runner

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

var faulty struct {
	once sync.Once
	wasm []byte
	err  error
}

// faultyWasm builds testdata/faulty, a plugin that misbehaves on request.
func faultyWasm(t *testing.T) []byte {
	faulty.once.Do(func() {
		dir, err := os.MkdirTemp("", "ctxhook-faulty-")
		if err != nil {
			faulty.err = err
			return
		}
		defer os.RemoveAll(dir) // read into memory below
		out := filepath.Join(dir, "faulty.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, "./testdata/faulty")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			faulty.err = errors.New(string(b))
			return
		}
		faulty.wasm, faulty.err = os.ReadFile(out)
	})
	if faulty.err != nil {
		t.Fatal(faulty.err)
	}
	return faulty.wasm
}

// TestSandbox: a guest that traps, loops or exhausts its memory gives the
// host an error within the call's bound, and nothing else; a guest that
// writes to stdout reaches nobody, even with EXTISM_ENABLE_WASI_OUTPUT set.
func TestSandbox(t *testing.T) {
	ctx := context.Background()
	wasm := faultyWasm(t)
	for _, tt := range []struct {
		mode  string
		opts  Options
		bound time.Duration
	}{
		{"trap", Options{}, time.Second},
		{"loop", Options{CallTimeout: 300 * time.Millisecond}, 300*time.Millisecond + 50*time.Millisecond},
		{"oom", Options{MaxMemoryPages: 512}, 5 * time.Second},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			tt.opts.Wasm = wasm
			r, err := New(ctx, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close(ctx)
			start := time.Now()
			_, err = r.Handle(ctx, abi.HandleRequest{Harness: "claude-code", Payload: tt.mode})
			took := time.Since(start)
			if !errors.Is(err, ErrCall) {
				t.Fatalf("err = %v, want ErrCall", err)
			}
			if took > tt.bound {
				t.Errorf("took %v, bound %v", took, tt.bound)
			}
			t.Logf("%s: %v after %v", tt.mode, err, took.Round(time.Millisecond))
		})
	}

	t.Run("stdout", func(t *testing.T) {
		t.Setenv("EXTISM_ENABLE_WASI_OUTPUT", "1")
		// Point this process's fd 1 at a file for the call.
		f, err := os.CreateTemp(t.TempDir(), "stdout")
		if err != nil {
			t.Fatal(err)
		}
		saved, _ := syscall.Dup(1)
		syscall.Dup2(int(f.Fd()), 1)
		r, err := New(ctx, Options{Wasm: wasm})
		if err == nil {
			_, err = r.Handle(ctx, abi.HandleRequest{Harness: "claude-code", Payload: "print"})
			r.Close(ctx)
		}
		syscall.Dup2(saved, 1)
		syscall.Close(saved)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(f.Name()); len(b) != 0 {
			t.Fatalf("the guest wrote %q to the host's stdout", b)
		}
	})
}

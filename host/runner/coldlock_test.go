//go:build unix

package runner

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/testhooks"
)

// TestColdLock: the first load into an empty cache leaves the marker; a
// process that finds no marker waits while another holds the compile
// lock, and loads as soon as the marker appears, without compiling.
func TestColdLock(t *testing.T) {
	ctx := context.Background()
	warm := t.TempDir()
	r, err := New(ctx, Options{CacheDir: warm})
	if err != nil {
		t.Fatal(err)
	}
	r.Close(ctx)
	markers, _ := filepath.Glob(filepath.Join(warm, "ready-*"))
	if len(markers) != 1 {
		t.Fatalf("markers after a cold load: %v", markers)
	}

	// A cache holding the compiled module but not the marker, its lock
	// held as by a process still compiling.
	dir := t.TempDir()
	if out, err := exec.Command("cp", "-a", warm+"/.", dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %s", out)
	}
	os.Remove(filepath.Join(dir, filepath.Base(markers[0])))
	lock, err := os.OpenFile(filepath.Join(dir, "compile-interruptible.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		r, err := New(ctx, Options{CacheDir: dir})
		if err == nil {
			r.Close(ctx)
		}
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("loaded while another process held the compile lock (err %v)", err)
	case <-time.After(time.Second):
	}
	// The other process finishes: marker, then unlock.
	os.WriteFile(filepath.Join(dir, filepath.Base(markers[0])), nil, 0o600)
	syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestColdLockNeverCompilesBeside: while another process holds the
// compile lock, a waiter whose deadline comes first gets ErrCold and
// compiles nothing (it used to compile on its own once it had waited
// 8 s, or at its deadline: under load every waiter did, all at once).
// When the holder is gone without a marker (it died), the next waiter
// takes the lock and compiles, once.
func TestColdLockNeverCompilesBeside(t *testing.T) {
	if !testhooks.Enabled {
		t.Skip("counts compilations with CTXHOOK_TEST_COMPILE_LOG: go test -tags ctxhook_testhooks (make unit)")
	}
	dir := t.TempDir()
	log := filepath.Join(t.TempDir(), "compiles")
	t.Setenv("CTXHOOK_TEST_COMPILE_LOG", log)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "compile-interruptible.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if !Compiling(dir, false) || Compiling(dir, true) {
		t.Fatalf("Compiling: interruptible %v fast %v, want true false", Compiling(dir, false), Compiling(dir, true))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	began := time.Now()
	r, err := New(ctx, Options{CacheDir: dir})
	if err == nil {
		r.Close(ctx)
	}
	if !errors.Is(err, ErrCold) {
		t.Fatalf("waiter past its deadline: err %v, want ErrCold", err)
	}
	if took := time.Since(began); took > time.Second {
		t.Fatalf("ErrCold after %v, want at the deadline", took)
	}
	if b, _ := os.ReadFile(log); len(b) > 0 {
		t.Fatalf("a waiter compiled beside the lock holder: %s", b)
	}

	// A caller that can hand its work on does not wait, however long its
	// deadline: ErrCold at once, and nothing compiled.
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	began = time.Now()
	r, err = New(ctx, Options{CacheDir: dir, HandOnCold: true})
	if err == nil {
		r.Close(ctx)
	}
	if !errors.Is(err, ErrCold) {
		t.Fatalf("HandOnCold while another compiles: err %v, want ErrCold", err)
	}
	if took := time.Since(began); took > 200*time.Millisecond {
		t.Fatalf("HandOnCold: ErrCold after %v, want at once", took)
	}
	if b, _ := os.ReadFile(log); len(b) > 0 {
		t.Fatalf("a caller that hands on compiled beside the lock holder: %s", b)
	}

	// The holder dies: its lock goes with it.
	syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if Compiling(dir, false) {
		t.Fatal("Compiling with no holder")
	}
	r, err = New(context.Background(), Options{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	r.Close(context.Background())
	if b, _ := os.ReadFile(log); strings.Count(string(b), "\n") != 1 {
		t.Fatalf("compilations logged: %q, want one", b)
	}
	if !Ready(dir, nil, false) || Ready(dir, nil, true) {
		t.Fatal("Ready: want the interruptible build only")
	}
}

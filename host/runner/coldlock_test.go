//go:build unix

package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
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

package platform

import (
	"errors"
	"github.com/ctxhook/ctxhook/internal/testdir"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	watchdogRoles()
	// A second process holding the lock for a while.
	if p := os.Getenv("FLOCK_TEST_HOLD"); p != "" {
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil || TryLock(f) != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("held\n")
		time.Sleep(time.Second)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestAcrossProcesses: a lock another process holds is busy, and free
// once that process ends (it never unlocked: the lock went with it).
func TestAcrossProcesses(t *testing.T) {
	path := filepath.Join(testdir.New(t), "x.lock")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FLOCK_TEST_HOLD="+path)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if n, _ := out.Read(buf); string(buf[:n]) != "held\n" {
		t.Fatalf("the other process did not take the lock: %q", buf[:n])
	}
	if err := TryLock(f); !errors.Is(err, ErrBusy) {
		t.Fatalf("TryLock while another process holds it: %v, want ErrBusy", err)
	}
	cmd.Wait()
	if err := TryLock(f); err != nil {
		t.Fatalf("TryLock after the holder ended: %v", err)
	}
	if err := Unlock(f); err != nil {
		t.Fatal(err)
	}
}

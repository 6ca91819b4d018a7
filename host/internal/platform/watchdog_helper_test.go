package platform

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// watchdogRoles lets this test binary be the watchdog's helper, as the
// ctxhook binary is, or a process the helper watches (TestMain).
func watchdogRoles() {
	if p := os.Getenv(EnvWatchdogParent); p != "" {
		var pid int
		for _, c := range p {
			pid = pid*10 + int(c-'0')
		}
		ServeWatchdog(pid)
		os.Exit(0)
	}
	switch os.Getenv("WATCHDOG_TEST_ROLE") {
	case "stuck":
		// Armed through the helper, then the whole runtime stands still,
		// as with a stuck guest call: with asynchronous preemption off
		// (the test sets GODEBUG), a collection waits forever for a loop
		// that never reaches a safe point, and every timer with it.
		armHelper(300 * time.Millisecond)
		go func() {
			for {
				runtime.GC()
			}
		}()
		spin()
	case "disarmed":
		disarm, ok := armHelper(300 * time.Millisecond)
		if !ok {
			os.Exit(4)
		}
		disarm()
		time.Sleep(800 * time.Millisecond)
		os.Stdout.WriteString("survived\n")
		os.Exit(0)
	}
}

//go:noinline
func spin() {
	for i := 0; ; i++ {
		if i < 0 {
			return
		}
	}
}

// TestHelper: the helper process ends a process whose deadline passed,
// even one whose runtime is busy, and leaves one that disarmed alone; it
// exits with its parent.
func TestHelper(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WATCHDOG_TEST_ROLE=stuck", "GODEBUG=asyncpreemptoff=1")
	start := time.Now()
	err := cmd.Run()
	// Ended by a signal on Unix; by TerminateProcess (exit status 1) on Windows.
	ended := err != nil && (strings.Contains(err.Error(), "terminated") || runtime.GOOS == "windows" && strings.Contains(err.Error(), "exit status 1"))
	if took := time.Since(start); !ended || took > 20*time.Second {
		t.Fatalf("a stuck process armed for 300 ms: %v after %v, want it terminated", err, took)
	}
	cmd = exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WATCHDOG_TEST_ROLE=disarmed")
	out, err := cmd.Output()
	if err != nil || string(out) != "survived\n" {
		t.Fatalf("a disarmed process: %v %q", err, out)
	}
}

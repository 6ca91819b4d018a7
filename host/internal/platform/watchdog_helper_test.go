package platform

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// watchdogRoles lets this test binary be the watchdog's helper, as the
// ctxhook binary is, or a process the helper watches (TestMain).
func watchdogRoles() {
	if pid, ok := WatchdogHelper(os.Args[1:], os.Getenv, os.Stderr); ok {
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

// TestWatchdogHelperOnlyWhenStartedAsOne: the variable alone, a value
// that is no pid, another process's pid, or the argument without the
// parent's pid never make a helper; each stray value gets one stderr
// line.
func TestWatchdogHelperOnlyWhenStartedAsOne(t *testing.T) {
	parent := strconv.Itoa(os.Getppid())
	// Where the parent cannot be told (Wine reports 0), the argument alone
	// makes the helper, whatever positive pid the variable holds.
	unknown := !parentKnown()
	if unknown {
		parent = "4242"
	}
	for _, tt := range []struct {
		name   string
		args   []string
		value  string
		helper bool
		warns  bool
	}{
		{"unset", []string{HelperArg}, "", false, false},
		{"not a pid", nil, "notapid", false, true},
		{"not a pid, with the argument", []string{HelperArg}, "notapid", false, true},
		{"zero", []string{HelperArg}, "0", false, true},
		{"the parent, no argument", nil, parent, false, true},
		{"the parent, a command", []string{"hook", "claude-code", "PostToolUse"}, parent, false, true},
		{"another pid, with the argument", []string{HelperArg}, "1", unknown, !unknown},
		{"the parent, the argument and more", []string{HelperArg, "x"}, parent, false, true},
		{"the parent and the argument", []string{HelperArg}, parent, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			env := func(k string) string {
				if k == EnvWatchdogParent {
					return tt.value
				}
				return ""
			}
			pid, ok := WatchdogHelper(tt.args, env, &stderr)
			if ok != tt.helper || ok && strconv.Itoa(pid) != tt.value {
				t.Fatalf("helper %v (pid %d), want %v", ok, pid, tt.helper)
			}
			if lines := strings.Count(stderr.String(), "\n"); lines != map[bool]int{true: 1}[tt.warns] {
				t.Fatalf("stderr %q, want one line: %v", stderr.String(), tt.warns)
			}
		})
	}
}

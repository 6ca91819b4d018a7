package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The watchdog's bound, lowered for TestIndexWatchdog's child process.
func init() {
	if d, err := time.ParseDuration(os.Getenv("CTXHOOK_TEST_INDEX_BOUND")); err == nil {
		indexCallTimeout = d
	}
}

// bigTranscript writes a Claude Code history under home: turns whose
// tool results are 1 MiB (eight copies each in the recorded history, as
// Claude Code writes them), one of 6 MiB (a turn past MaxTurn), and a
// last ordinary turn: 100 MB.
func bigTranscript(t *testing.T, home string) string {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "transcripts", "claude-code-2.1.330.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	anchor := []byte("checkout fails with HTTP 502 after the payments deploy")
	turn := func(ticket string, n int) []byte {
		out := append(append([]byte{}, anchor...), bytes.Repeat([]byte(" build step ok"), n/14)...)
		return bytes.ReplaceAll(bytes.ReplaceAll(b, anchor, out), []byte("CVX-5909"), []byte(ticket))
	}
	var f bytes.Buffer
	for i := range 6 {
		f.Write(turn("CVX-"+string(rune('A'+i)), 1<<20))
	}
	f.Write(turn("CVX-HUGE", 6<<20))
	f.Write(turn("CVX-LAST", 1<<10))
	p := filepath.Join(home, ".claude/projects/-p/big.jsonl")
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, f.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	return p
}

// TestIndexBigTranscriptRSS: indexing a 100 MB transcript of long turns
// (passes grown to MaxTurn, lines of 6 MB) keeps the process under 300
// MB (it peaked at 418 MB with the instance replaced only between files
// and no memory limit), reaches the
// turn after them, and a second run indexes nothing.
func TestIndexBigTranscriptRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("a 100 MB transcript (-short)")
	}
	e := newEnv(t)
	bigTranscript(t, e.vars["HOME"])
	cmd := exec.Command(os.Args[0], "index", "--all")
	cmd.Env = []string{"CTXHOOK_TEST_MAIN=1", "PATH=" + os.Getenv("PATH")}
	for k, v := range e.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// VmHWM of the child's own memory: its ru_maxrss starts from this
	// test process's peak (Linux keeps it across the exec).
	var rss int64
	done := make(chan error)
	go func() { done <- cmd.Wait() }()
	for waiting := true; waiting; {
		select {
		case err := <-done:
			if err != nil || !strings.Contains(out.String(), "Indexed ") {
				t.Fatalf("%v: %s", err, out.String())
			}
			waiting = false
		case <-time.After(50 * time.Millisecond):
			rss = max(rss, vmHWM(cmd.Process.Pid))
		}
	}
	t.Logf("peak RSS %d MiB: %s", rss, bytes.TrimSpace(out.Bytes()))
	if rss > 300 {
		t.Errorf("peak RSS %d MiB, over 300", rss)
	}
	if out, _, _ := e.run(t, nil, "search", "CVX-LAST"); !strings.Contains(out, "#c") {
		t.Errorf("the turn after the long ones was not indexed:\n%s", out)
	}
	if out, errs, code := e.run(t, nil, "index", "--all"); code != 0 || !strings.Contains(out, "Indexed 0 new turns") {
		t.Errorf("second run: %d %q %q", code, out, errs)
	}
}

// TestIndexWatchdog: ctxhook index runs plugin calls that nothing can
// interrupt (faster); a watchdog bounds each pass, and a pass past its
// bound ends the process, where it would otherwise run on forever.
func TestIndexWatchdog(t *testing.T) {
	e := newEnv(t)
	plantHistory(t, e.vars["HOME"])
	e.vars["CTXHOOK_TEST_INDEX_BOUND"] = "1ns"
	t0 := time.Now()
	out, errs, code := e.proc(t, nil, "index", "--all")
	if code != -1 || strings.Contains(out, "Indexed ") {
		t.Fatalf("an overrun did not end the run: exit %d after %s\n%s%s", code, time.Since(t0), out, errs)
	}
}

// vmHWM is a process's peak resident set in MiB (0 once it is gone).
func vmHWM(pid int) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb >> 10
		}
	}
	return 0
}

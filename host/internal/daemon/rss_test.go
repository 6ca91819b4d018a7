//go:build linux

package daemon_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/internal/bigpayload"
)

// rssOf is a process's resident memory in bytes (/proc/pid/status).
func rssOf(t *testing.T, pid int) int64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// TestMemoryAfterBigResult: after a 64 MiB result is answered and
// stored, the daemon's resident memory falls back under 150 MB within
// 60 s, while small hooks keep coming every few seconds, as in a session
// at work (the daemon gave memory back only after 30 s with no hook at
// all, and kept what its writer grew to for a big result).
func TestMemoryAfterBigResult(t *testing.T) {
	if testing.Short() {
		t.Skip("a 64 MiB result (-short)")
	}
	f := newFixture(t)
	d := f.startDaemon()
	small := payload(t, "PreToolUse")
	marker := "rssBigZ9"
	out, errOut, _ := f.hook("PostToolUse", bigpayload.ClaudePostToolUse(64<<20, marker, "rss-session", "toolu_rss"))
	answered := time.Now()
	if strings.Contains(errOut, "continues without ctxhook") || out == "" {
		t.Fatalf("the hook was not decided by the daemon: %q", errOut)
	}
	if f.searchFor(marker, 180*time.Second) < 0 {
		t.Fatal("the 64 MiB result was never searchable")
	}
	stored := time.Now()
	peak := rssOf(t, d.Process.Pid)
	for rss := peak; ; rss = rssOf(t, d.Process.Pid) {
		if rss < 150<<20 {
			t.Logf("RSS %d MB, %.0f s after the answer, %.0f s after it was stored (%d MB then)",
				rss>>20, time.Since(answered).Seconds(), time.Since(stored).Seconds(), peak>>20)
			return
		}
		if time.Since(stored) > 60*time.Second {
			t.Fatalf("RSS still %d MB 60 s after the result was stored (%d MB when it was)", rss>>20, peak>>20)
		}
		time.Sleep(time.Second)
		if time.Since(stored)%(5*time.Second) < time.Second {
			f.hook("PreToolUse", small)
		}
	}
}

//go:build unix

package daemon_test

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/daemon"
	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/internal/bigpayload"
	"github.com/ctxhook/ctxhook/internal/homeprocs"
)

// TestSoakDaemon (make soak): one daemon, as a real process, serves one
// agent session's long day: CTXHOOK_SOAK_CALLS (default 20,000)
// PostToolUse hooks of a 6 KB MCP result, with 200 of 1 MiB in a row in
// the middle. Every answer must be a decision (none failed, every stdout
// valid JSON or empty), the daemon's RSS at the end at most 150 MB, and
// the p99 of the last 1,000 calls within 1.5x of the first 1,000's.
func TestSoakDaemon(t *testing.T) {
	if os.Getenv("CTXHOOK_SOAK") == "" {
		t.Skip("set CTXHOOK_SOAK=1 (make soak)")
	}
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("CTXHOOK_SOAK_CALLS")); err == nil && v >= 2400 {
		n = v
	}
	f := newFixture(t)
	d := f.startDaemon()
	small, err := os.ReadFile("../../../testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	c := &daemon.Client{Paths: f.paths()}
	defer c.Close()
	bigFrom := n/2 - 100
	times := make([]time.Duration, 0, n)
	failed := 0
	start := time.Now()
	for i := range n {
		payload := small
		if i >= bigFrom && i < bigFrom+200 {
			m := fmt.Sprintf("soakbig%d", i)
			payload = bigpayload.ClaudePostToolUse(1<<20, m, "soak-session", "toolu_"+m)
		}
		req := hookproto.Request{Harness: "claude-code", Event: "PostToolUse", ID: fmt.Sprintf("soak-%d", i), Payload: payload}
		t0 := time.Now()
		a, err := c.Ask(req, 30*time.Second)
		times = append(times, time.Since(t0))
		if err != nil || a.Failed != "" || a.Code != 0 || (a.Text != "" && !json.Valid([]byte(a.Text))) {
			if failed++; failed <= 5 {
				t.Errorf("call %d: %v failed=%q code=%d stderr=%q", i, err, a.Failed, a.Code, a.Stderr)
			}
		}
	}
	rss, peak := homeprocs.Memory(d.Process.Pid)
	first, last := pctl(times[:1000], 99), pctl(times[n-1000:], 99)
	fmt.Printf("daemon soak: %d hooks (200 of 1 MiB in a row) in %v; failed %d; RSS at the end %.1f MB (peak %.1f MB); p99 first 1,000 %v, last 1,000 %v (%.2fx); p50 %v, %v\n",
		n, time.Since(start).Round(time.Second), failed, float64(rss)/1e6, float64(peak)/1e6, first, last, float64(last)/float64(first),
		pctl(times[:1000], 50), pctl(times[n-1000:], 50))
	if failed > 0 {
		t.Errorf("%d of %d hooks had no decision", failed, n)
	}
	if rss > 150e6 {
		t.Errorf("daemon RSS at the end %.1f MB, want at most 150 MB", float64(rss)/1e6)
	}
	if float64(last) > 1.5*float64(first) {
		t.Errorf("p99 of the last 1,000 calls %v is over 1.5x the first 1,000's %v", last, first)
	}
}

func pctl(ds []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)*p/100].Round(10 * time.Microsecond)
}

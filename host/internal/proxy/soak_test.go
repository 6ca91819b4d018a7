package proxy_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/internal/homeprocs"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSoakProxy (make soak): one proxy session of CTXHOOK_SOAK_CALLS
// (default 20,000) relayed tools/call with results from 1 KB to 1 MiB
// (a tracker's JSON with secrets; one call in 100 is 1 MiB), deciding
// through the daemon as installed, and again deciding in-process
// (CTXHOOK_NO_DAEMON=1; a fifth as many calls). Every call must carry the right token (the
// server rejects any other) and no result may show it to the client;
// the proxy must never say it had no decision; the proxy's and the
// daemon's RSS at the end at most 150 MB each; the p99 of the last 1,000
// calls within 1.5x of the first 1,000's.
func TestSoakProxy(t *testing.T) {
	if os.Getenv("CTXHOOK_SOAK") == "" {
		t.Skip("set CTXHOOK_SOAK=1 (make soak)")
	}
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("CTXHOOK_SOAK_CALLS")); err == nil && v >= 2400 {
		n = v
	}
	// The in-process path (a fallback, several times slower per call)
	// runs a fifth as many calls: still five of its instance's lives.
	for _, mode := range []struct {
		name, noDaemon string
		n              int
	}{{"daemon", "", n}, {"in-process", "1", max(n/5, 2400)}} {
		t.Run(mode.name, func(t *testing.T) {
			n := mode.n
			f := connectWith(t, []string{"--timeout", "60s", "--", "/usr/bin/env", "PROXY_TEST_ROLE=server", os.Args[0]},
				[]string{"CTXHOOK_NO_DAEMON=" + mode.noDaemon})
			t.Cleanup(func() { f.close(t); stopDaemons(t, f.home) })
			ctx := context.Background()
			if _, err := f.session.CallTool(ctx, &mcp.CallToolParams{Name: "start_session"}); err != nil {
				t.Fatal(err)
			}
			times := make([]time.Duration, 0, n)
			bad := 0
			start := time.Now()
			for i := range n {
				size := 1 << 10
				switch {
				case i%100 == 99:
					size = 1 << 20
				case i%20 == 19:
					size = 256 << 10
				case i%5 == 4:
					size = 64 << 10
				case i%2 == 1:
					size = 6 << 10
				}
				t0 := time.Now()
				res, err := f.session.CallTool(ctx, &mcp.CallToolParams{Name: "step", Arguments: map[string]any{"n": i, "issues": size}})
				times = append(times, time.Since(t0))
				if err != nil || res.IsError || res.Meta["session_token"] != nil {
					if bad++; bad <= 5 {
						t.Errorf("call %d (%d bytes): err %v, result %+v", i, size, err, res)
					}
				}
			}
			var rss, daemonRSS int64
			rss, _ = homeprocs.Memory(f.proc.Process.Pid)
			for _, pid := range daemonsOf(f.home) {
				daemonRSS, _ = homeprocs.Memory(pid)
			}
			first, last := pct(times[:1000], 99), pct(times[n-1000:], 99)
			fmt.Printf("proxy soak (%s): %d calls in %v; %d without the right token or showing it; proxy RSS at the end %.1f MB, daemon %.1f MB; p99 first 1,000 %v, last 1,000 %v (%.2fx); p50 %v, %v\n",
				mode.name, n, time.Since(start).Round(time.Second), bad, float64(rss)/1e6, float64(daemonRSS)/1e6,
				first, last, float64(last)/float64(first), pct(times[:1000], 50), pct(times[n-1000:], 50))
			if bad > 0 {
				t.Errorf("%d of %d calls went without the right token or showed it", bad, n)
			}
			if s := f.stderr.String(); strings.Contains(s, "no decision") || strings.Contains(s, "untouched") {
				t.Errorf("the proxy went without decisions:\n%s", s)
			}
			if rss > 150e6 || daemonRSS > 150e6 {
				t.Errorf("RSS at the end: proxy %.1f MB, daemon %.1f MB; want at most 150 MB each", float64(rss)/1e6, float64(daemonRSS)/1e6)
			}
			if float64(last) > 1.5*float64(first) {
				t.Errorf("p99 of the last 1,000 calls %v is over 1.5x the first 1,000's %v", last, first)
			}
		})
	}
}

package proxy_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProxyLatency measures what the proxy adds to a tools/call: the same
// SDK client calls the same SDK server directly and through the proxy,
// alternating call by call so load hits both alike, and reports p50/p99 of
// each and the difference. A benchmark, not a timed test: it asserts
// nothing about speed. Run by `make bench` (CTXHOOK_BENCH=1).
func TestProxyLatency(t *testing.T) {
	if os.Getenv("CTXHOOK_BENCH") == "" {
		t.Skip("set CTXHOOK_BENCH=1 (make bench)")
	}
	n := 300
	// The proxy as installed: decisions through the daemon it starts.
	proxied := connectWith(t, []string{"--timeout", "60s", "--", "/usr/bin/env", "PROXY_TEST_ROLE=server", os.Args[0]}, []string{"CTXHOOK_NO_DAEMON="})
	t.Cleanup(func() { stopDaemons(t, proxied.home) })
	waitDaemon(t, proxied.home)
	direct := directSession(t)
	args := map[string]any{"bytes": 6000} // a ~6 KB result, like a ticket
	var d, p []time.Duration
	ctx := context.Background()
	for i := 0; i < n+20; i++ {
		t0 := time.Now()
		if _, err := direct.CallTool(ctx, &mcp.CallToolParams{Name: "big", Arguments: args}); err != nil {
			t.Fatal(err)
		}
		t1 := time.Now()
		if _, err := proxied.session.CallTool(ctx, &mcp.CallToolParams{Name: "big", Arguments: args}); err != nil {
			t.Fatal(err)
		}
		t2 := time.Now()
		if i >= 20 { // warm-up
			d = append(d, t1.Sub(t0))
			p = append(p, t2.Sub(t1))
		}
	}
	pd50, pd99 := pct(d, 50), pct(d, 99)
	pp50, pp99 := pct(p, 50), pct(p, 99)
	fmt.Printf("proxy latency, %d tools/call with a 6 KB result, alternating:\n", n)
	fmt.Printf("  direct   p50 %8v  p99 %8v\n", pd50, pd99)
	fmt.Printf("  proxied  p50 %8v  p99 %8v\n", pp50, pp99)
	if os.Getenv("XDEBUG") != "" {
		fmt.Println(proxied.stderr.String()[:2000])
	}
	fmt.Printf("  added    p50 %8v  p99 %8v  (proxied/direct p50 %.1fx)\n", pp50-pd50, pp99-pd99, float64(pp50)/float64(pd50))
}

func directSession(t *testing.T) *mcp.ClientSession {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PROXY_TEST_ROLE=server")
	client := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "1"}, nil)
	s, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func pct(ds []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)*p/100].Round(10 * time.Microsecond)
}

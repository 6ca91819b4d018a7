//go:build linux

package proxy_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rssOf is a process's resident memory in bytes, 0 when it is gone.
func rssOf(pid int) int64 {
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestMemoryAfterBigResult: after a 64 MiB tools/call result the idle
// proxy's resident memory falls back under 150 MB within 60 s (it kept
// 276 MB: nothing it did while idle started a collection). With
// CTXHOOK_BENCH set it prints the proxy's and the daemon's RSS at 0, 10,
// 30 and 60 s after the answer (make bench).
func TestMemoryAfterBigResult(t *testing.T) {
	if testing.Short() {
		t.Skip("a 64 MiB result (-short)")
	}
	f := connectWith(t, []string{"--timeout", "120s", "--", "/usr/bin/env", "PROXY_TEST_ROLE=server", os.Args[0]}, []string{"CTXHOOK_NO_DAEMON="})
	t.Cleanup(func() { stopDaemons(t, f.home) })
	waitDaemon(t, f.home)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r, err := f.session.CallTool(ctx, &mcp.CallToolParams{Name: "issues", Arguments: map[string]any{"bytes": 64 << 20, "marker": "rssProxyZ9"}})
	if err != nil || r.IsError {
		t.Fatalf("64 MiB call: %v\nproxy stderr: %s", err, f.stderr)
	}
	answered := time.Now()
	bench := os.Getenv("CTXHOOK_BENCH") != ""
	pid, daemons := f.proc.Process.Pid, daemonsOf(f.home)
	var line strings.Builder
	for _, at := range []time.Duration{0, 10 * time.Second, 30 * time.Second, 60 * time.Second} {
		time.Sleep(time.Until(answered.Add(at)))
		rss := rssOf(pid)
		fmt.Fprintf(&line, " %ds proxy %d MB", int(at.Seconds()), rss>>20)
		for _, d := range daemons {
			fmt.Fprintf(&line, ", daemon %d MB", rssOf(d)>>20)
		}
		line.WriteString(";")
		if rss < 150<<20 && !bench {
			t.Logf("proxy RSS %d MB %.0f s after the answer", rss>>20, time.Since(answered).Seconds())
			return
		}
	}
	if bench {
		fmt.Printf("RSS after a 64 MiB result through the proxy:%s\n", line.String())
	}
	if rss := rssOf(pid); rss >= 150<<20 {
		t.Errorf("the idle proxy keeps %d MB 60 s after a 64 MiB result:%s", rss>>20, line.String())
	}
}

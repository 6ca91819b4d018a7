package proxy_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/bigpayload"
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

// TestProxyThroughput times tools/call results of 1, 4, 16 and 64 MiB (a
// tracker's JSON search result with secrets in it, as one text block),
// direct and through the proxy (decisions in the daemon), alternating,
// with shaping off so that the client receives the same bytes both ways:
// the difference is what the proxy costs. A benchmark, not a timed test.
func TestProxyThroughput(t *testing.T) {
	if os.Getenv("CTXHOOK_BENCH") == "" {
		t.Skip("set CTXHOOK_BENCH=1 (make bench)")
	}
	proxied := connectWith(t, []string{"--timeout", "120s", "--", "/usr/bin/env", "PROXY_TEST_ROLE=server", os.Args[0]}, []string{"CTXHOOK_NO_DAEMON="})
	t.Cleanup(func() { stopDaemons(t, proxied.home) })
	os.WriteFile(filepath.Join(proxied.home, "config", "config.toml"), []byte("[servers.wf]\nrelay = true\nproxy = true\nshape_bytes = -1\n"), 0o600)
	waitDaemon(t, proxied.home)
	direct := bigDirectSession(t)
	ctx := context.Background()
	call := func(s *mcp.ClientSession, mib int, marker string) time.Duration {
		t0 := time.Now()
		r, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "issues", Arguments: map[string]any{"bytes": mib << 20, "marker": marker}})
		if err != nil || r.IsError {
			t.Fatalf("%d MiB: %v", mib, err)
		}
		return time.Since(t0)
	}
	call(proxied.session, 1, "warm")
	fmt.Printf("proxy throughput: tools/call results (JSON with secrets, one text block), direct and proxied, alternating:\n")
	fmt.Printf("%6s %12s %12s %12s %16s %16s\n", "MiB", "direct ms", "proxied ms", "added ms", "MB/s (added)", "searchable after")
	for _, mib := range benchSizes() {
		var d, p []time.Duration
		rounds := 5
		if mib == 64 {
			rounds = 3
		}
		var found []time.Duration
		for r := 0; r < rounds; r++ {
			marker := fmt.Sprintf("thr%dr%dx%d", mib, r, time.Now().UnixNano()%1e6)
			d = append(d, call(direct, mib, marker))
			p = append(p, call(proxied.session, mib, marker))
			// The next pair waits for this result to be stored, so that
			// indexing it does not slow the next calls down.
			answered := time.Now()
			for !searchable(t, proxied.home, marker) && time.Since(answered) < 60*time.Second {
				time.Sleep(20 * time.Millisecond)
			}
			found = append(found, time.Since(answered))
		}
		added := pct(p, 50) - pct(d, 50)
		mb := float64(len(bigpayload.Result(mib<<20, "x"))) / 1e6
		fmt.Printf("%6d %12.0f %12.0f %12.0f %16.1f %13.0f ms\n", mib, ms(pct(d, 50)), ms(pct(p, 50)), ms(added), mb/added.Seconds(), ms(pct(found, 50)))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// benchSizes are TestProxyThroughput's sizes in MiB: 1, 4, 16 and 64, or
// those CTXHOOK_BENCH_MIB lists ("1,4").
func benchSizes() []int {
	var sizes []int
	for _, f := range strings.Split(os.Getenv("CTXHOOK_BENCH_MIB"), ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			sizes = append(sizes, n)
		}
	}
	if len(sizes) == 0 {
		return []int{1, 4, 16, 64}
	}
	return sizes
}

// bigDirectSession is directSession with frames large enough for a
// 64 MiB result.
func bigDirectSession(t *testing.T) *mcp.ClientSession {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PROXY_TEST_ROLE=server")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "1"}, nil)
	s, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: out, Writer: in, MaxLineLength: 256 << 20}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); cmd.Process.Kill(); cmd.Wait() })
	return s
}

// searchable: the store under home finds marker.
func searchable(t *testing.T, home, marker string) bool {
	st, err := store.Open(filepath.Join(home, "state", "ctxhook.db"), store.Options{ReadOnly: true})
	if err != nil {
		return false
	}
	defer st.Close()
	hits, err := st.Search(store.ParseQuery(marker), store.SearchOptions{})
	return err == nil && len(hits) > 0
}

// TestProxyFirstAnswer measures what a user waits for when the agent
// starts its servers just after `ctxhook install`: the time from process
// start to the first tools/call's answer (initialize included) of a
// server started directly, through a relay that decides nothing (the
// floor of any process in between), and through `ctxhook proxy` in a
// fresh home after install: with the daemon install started, with no
// daemon (the proxy starts one), and three of each started at once. Two
// servers: the test's Go server (the official Go SDK, a few ms to start)
// and a Node server without dependencies (testdata/server.mjs: what node
// itself costs, as most MCP servers are Node or Python ones that cost
// more). A benchmark: it asserts nothing about speed.
func TestProxyFirstAnswer(t *testing.T) {
	if os.Getenv("CTXHOOK_BENCH") == "" {
		t.Skip("set CTXHOOK_BENCH=1 (make bench)")
	}
	first := func(env []string, args ...string) time.Duration {
		t0 := time.Now()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = env
		client := mcp.NewClient(&mcp.Implementation{Name: "first", Version: "1"}, nil)
		s, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "big", Arguments: map[string]any{"bytes": 6000}}); err != nil {
			t.Fatal(err)
		}
		return time.Since(t0)
	}
	three := func(env []string, args ...string) []time.Duration {
		times := make(chan time.Duration, 3)
		for range 3 {
			go func() { times <- first(env, args...) }()
		}
		return []time.Duration{<-times, <-times, <-times}
	}
	servers := []struct {
		name string
		cmd  []string
	}{
		{"Go SDK server", []string{"/usr/bin/env", "PROXY_TEST_ROLE=server", os.Args[0]}},
	}
	if node, err := exec.LookPath("node"); err == nil {
		abs, _ := filepath.Abs("testdata/server.mjs")
		servers = append(servers, struct {
			name string
			cmd  []string
		}{"Node server", []string{node, abs}})
	} else {
		fmt.Println("(no node on PATH: the Node server is not timed)")
	}
	// The proxy and install run as a user's would: the built binary
	// (CTXHOOK_PROXY_BIN, as make bench sets it), else this test binary.
	bin := cmp.Or(os.Getenv("CTXHOOK_PROXY_BIN"), os.Args[0])
	// The floor: a small static program that starts the server and
	// passes its stdio through, deciding nothing.
	relay := filepath.Join(t.TempDir(), "relay")
	build := exec.Command("go", "build", "-o", relay, "./testdata/relay")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the relay: %v\n%s", err, out)
	}
	fmt.Printf("first tools/call answer from process start (initialize included), 5 rounds, p50 and max; proxy %s:\n", bin)
	for _, srv := range servers {
		var direct, direct3, relayed, installed, installed3, alone, alone3 []time.Duration
		for r := 0; r < 5; r++ {
			home := t.TempDir()
			os.MkdirAll(filepath.Join(home, "config"), 0o700)
			os.WriteFile(filepath.Join(home, "config", "config.toml"), []byte("[servers.wf]\nrelay = true\nproxy = true\n"), 0o600)
			env := append(os.Environ(), "PROXY_TEST_ROLE=proxy", "CTXHOOK_HOME="+home, "HOME="+home, "CTXHOOK_NO_DAEMON=")
			// install as a user runs it: it compiles the plugin and starts
			// the daemon; the harness starts a moment later.
			inst := exec.Command(bin, "install", "claude-code")
			inst.Env = env
			if out, err := inst.CombinedOutput(); err != nil {
				t.Fatalf("install: %v\n%s", err, out)
			}
			waitDaemon(t, home)
			proxy := append([]string{bin, "proxy", "--name", "wf", "--"}, srv.cmd...)
			direct = append(direct, first(os.Environ(), srv.cmd...))
			relayed = append(relayed, first(os.Environ(), append([]string{relay}, srv.cmd...)...))
			installed = append(installed, first(env, proxy...))
			direct3 = append(direct3, three(os.Environ(), srv.cmd...)...)
			installed3 = append(installed3, three(env, proxy...)...)
			stopDaemons(t, home)
			waitGone(t, home)
			alone = append(alone, first(env, proxy...))
			stopDaemons(t, home)
			waitGone(t, home)
			alone3 = append(alone3, three(env, proxy...)...)
			stopDaemons(t, home)
		}
		d, d3 := pct(direct, 50), pct(direct3, 50)
		row := func(what string, xs []time.Duration, base time.Duration, baseName string) {
			fmt.Printf("  %-40s p50 %9v  max %9v  (p50 %.2fx, max %.2fx %s)\n", what, pct(xs, 50), pct(xs, 100),
				float64(pct(xs, 50))/float64(base), float64(pct(xs, 100))/float64(base), baseName)
		}
		fmt.Printf(" %s:\n", srv.name)
		fmt.Printf("  %-40s p50 %9v  max %9v\n", "direct", d, pct(direct, 100))
		fmt.Printf("  %-40s p50 %9v  max %9v\n", "direct, three at once", d3, pct(direct3, 100))
		row("relay deciding nothing (the floor)", relayed, d, "direct")
		row("proxy after install (daemon running)", installed, d, "direct")
		row("three proxies at once after install", installed3, d3, "direct three at once")
		row("proxy, no daemon (it starts one)", alone, d, "direct")
		row("three proxies at once, no daemon", alone3, d3, "direct three at once")
	}
}

// waitGone waits until no daemon of home runs.
func waitGone(t *testing.T, home string) {
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if len(daemonsOf(home)) == 0 {
			return
		}
	}
	t.Fatalf("a daemon of %s still runs", home)
}

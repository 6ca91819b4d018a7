// Command hookbench times whole hook processes side by side with two
// baselines (node -e 0, an empty Go program) and reports ratios: cold
// (`ctxhook hook`, compilation cache present), warm (`ctxhook-hook`, daemon
// running), Claude Code's mcp_tool hooks (a tools/call on a running
// `ctxhook mcp`, the daemon behind it), 8 parallel warm clients, and the
// first-ever hook. It then
// drives the daemon with 25,000 requests over its socket and reports its
// resident memory. `make bench` runs it.
package main

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/internal/bigpayload"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	rounds := flag.Int("rounds", 40, "interleaved rounds")
	calls := flag.Int("daemon-calls", 25000, "requests for the daemon memory check")
	bin := flag.String("bin", "bin", "directory with ctxhook and ctxhook-hook")
	trace := flag.Bool("trace-rss", false, "print the daemon's RSS every 1,000 requests")
	cmDir := flag.String("context-mode", "", "an unpacked context-mode package: also time its PostToolUse hook on the same payload")
	cmNode := flag.String("context-mode-node", "node", "the node binary context-mode needs (1.0.169: Node >= 22.5)")
	sizes := flag.String("sizes", "1,4,16,64", "payload sizes in MiB for the throughput table (empty: skip)")
	payloadPath := flag.String("payload", "testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json", "PostToolUse hook payload")
	prePath := flag.String("pre-payload", "testdata/payloads/claude-code/2.1.330/hook-PreToolUse.json", "PreToolUse hook payload (a smaller one, timed warm too)")
	flag.Parse()
	payload, err := os.ReadFile(*payloadPath)
	check(err)
	prePayload, err := os.ReadFile(*prePath)
	check(err)
	work, err := os.MkdirTemp("", "hookbench")
	check(err)
	defer os.RemoveAll(work)
	hello := filepath.Join(work, "hello")
	os.WriteFile(filepath.Join(work, "hello.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	cmd := exec.Command("go", "build", "-o", hello, "hello.go")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GO111MODULE=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s", out)
		os.Exit(1)
	}
	ctxhook, _ := filepath.Abs(filepath.Join(*bin, "ctxhook"))
	client, _ := filepath.Abs(filepath.Join(*bin, "ctxhook-hook"))
	home := filepath.Join(work, "h")
	os.MkdirAll(filepath.Join(home, "config"), 0o700)
	os.WriteFile(filepath.Join(home, "config", "config.toml"), []byte("[servers.tickets]\nrelay = true\n"), 0o600)
	env := append(os.Environ(), "CTXHOOK_HOME="+home, "CTXHOOK_DAEMON_IDLE=2m")

	first := timeOne(env, payload, ctxhook, "hook", "claude-code", "PostToolUse")
	// Start the daemon and warm it.
	d := exec.Command(ctxhook, "daemon")
	d.Env = env
	check(d.Start())
	defer d.Process.Kill()
	p, _ := paths.Resolve(func(k string) string {
		if k == "CTXHOOK_HOME" {
			return home
		}
		return ""
	})
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(p.Socket()); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i := 0; i < 5; i++ {
		timeOne(env, payload, client, "claude-code", "PostToolUse")
	}
	// Claude Code's mcp_tool hooks: the same payloads, as a tools/call of
	// the hook tool on a running `ctxhook mcp` (no process per hook), the
	// fields passed as Claude Code interpolates them.
	// The hooks install writes carry the install's secret; so do these.
	check(paths.EnsureDir(p.Data))
	secret, err := hooksecret.Ensure(hooksecret.Path(p.Data))
	check(err)
	mc := exec.Command(ctxhook, "mcp")
	mc.Env = env
	hooks, err := mcp.NewClient(&mcp.Implementation{Name: "hookbench", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: mc}, nil)
	check(err)
	defer hooks.Close()
	hookCall := func(payload []byte) time.Duration {
		var p map[string]json.RawMessage
		check(json.Unmarshal(payload, &p))
		args := map[string]any{}
		for k, v := range p {
			var s string
			if json.Unmarshal(v, &s) != nil {
				s = string(v)
			}
			args[k] = s
		}
		args[hooksecret.Field] = secret
		t0 := time.Now()
		res, err := hooks.CallTool(context.Background(), &mcp.CallToolParams{Name: "hook", Arguments: args})
		check(err)
		if res.IsError {
			check(fmt.Errorf("the hook tool failed: %v", res.Content))
		}
		return time.Since(t0)
	}
	for i := 0; i < 5; i++ {
		hookCall(payload)
	}
	_, nodeErr := exec.LookPath("node")
	series := map[string][]time.Duration{}
	for r := 0; r < *rounds; r++ {
		series["mcptool"] = append(series["mcptool"], hookCall(payload))
		series["mcptool-pre"] = append(series["mcptool-pre"], hookCall(prePayload))
		series["cold"] = append(series["cold"], timeOne(env, payload, ctxhook, "hook", "claude-code", "PostToolUse"))
		series["warm"] = append(series["warm"], timeOne(env, payload, client, "claude-code", "PostToolUse"))
		series["warm-pre"] = append(series["warm-pre"], timeOne(env, prePayload, client, "claude-code", "PreToolUse"))
		if nodeErr == nil {
			series["node"] = append(series["node"], timeOne(env, nil, "node", "-e", "0"))
		}
		series["hello"] = append(series["hello"], timeOne(env, nil, hello))
		if *cmDir != "" {
			cmEnv := append(os.Environ(), "HOME="+filepath.Join(work, "cmhome"), "CLAUDE_PROJECT_DIR="+work)
			series["context-mode"] = append(series["context-mode"], timeOne(cmEnv, payload, *cmNode, filepath.Join(*cmDir, "hooks", "posttooluse.mjs")))
		}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < *rounds; r++ {
				t := timeOne(env, payload, client, "claude-code", "PostToolUse")
				mu.Lock()
				series["parallel8"] = append(series["parallel8"], t)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()

	wasm, _ := os.Stat("plugin/plugin.wasm")
	fmt.Printf("rounds %d; plugin.wasm %d bytes; PostToolUse payload %d bytes, PreToolUse %d\n", *rounds, wasm.Size(), len(payload), len(prePayload))
	fmt.Printf("%-44s %8s %8s %8s\n", "command", "p50 ms", "p90 ms", "p99 ms")
	names := map[string]string{"cold": "ctxhook hook (cold: no daemon, cache present)", "warm": "ctxhook-hook (warm: daemon)",
		"warm-pre":  "ctxhook-hook PreToolUse (warm)",
		"parallel8": "ctxhook-hook, 8 clients in parallel", "node": "node -e 0", "hello": "Go hello world",
		"context-mode": "context-mode PostToolUse (same payload)",
		"mcptool":      "mcp_tool hook: tools/call on ctxhook mcp", "mcptool-pre": "mcp_tool hook, PreToolUse"}
	for _, k := range []string{"warm", "warm-pre", "mcptool", "mcptool-pre", "parallel8", "cold", "node", "hello", "context-mode"} {
		if len(series[k]) == 0 {
			continue
		}
		fmt.Printf("%-44s %8.1f %8.1f %8.1f\n", names[k], pct(series[k], 50), pct(series[k], 90), pct(series[k], 99))
	}
	fmt.Printf("first-ever hook (no compilation cache): %.0f ms\n", msOf(first))
	fmt.Printf("mcp_tool hook against the command hook (ctxhook-hook), p50: PostToolUse %.2fx (%.1f against %.1f ms), PreToolUse %.2fx (%.1f against %.1f ms)\n",
		pct(series["mcptool"], 50)/pct(series["warm"], 50), pct(series["mcptool"], 50), pct(series["warm"], 50),
		pct(series["mcptool-pre"], 50)/pct(series["warm-pre"], 50), pct(series["mcptool-pre"], 50), pct(series["warm-pre"], 50))
	if len(series["node"]) > 0 {
		n50, n99, h50 := pct(series["node"], 50), pct(series["node"], 99), pct(series["hello"], 50)
		fmt.Printf("warm p50: %.3fx node -e 0, %.2fx Go hello; warm p99: %.3fx node -e 0 p99\n",
			pct(series["warm"], 50)/n50, pct(series["warm"], 50)/h50, pct(series["warm"], 99)/n99)
		fmt.Printf("warm PreToolUse p50: %.3fx node -e 0, %.2fx Go hello\n", pct(series["warm-pre"], 50)/n50, pct(series["warm-pre"], 50)/h50)
		fmt.Printf("cold p50: %.2fx node -e 0; 8 parallel p99: %.1f ms\n", pct(series["cold"], 50)/n50, pct(series["parallel8"], 99))
	}
	if len(series["context-mode"]) > 0 {
		fmt.Printf("context-mode PostToolUse p50 / warm ctxhook p50: %.1fx\n", pct(series["context-mode"], 50)/pct(series["warm"], 50))
	}

	if *sizes != "" {
		throughput(env, client, ctxhook, *sizes)
	}

	// Daemon memory after many requests, over the socket directly.
	start := time.Now()
	rss := func() string {
		status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.Process.Pid))
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "VmRSS") {
				return strings.Join(strings.Fields(line)[1:], " ")
			}
		}
		return "?"
	}
	// The daemon is bin's ctxhook: its requests carry that binary's build
	// id, not this program's (built apart, it may lack VCS stamps).
	bi, err := buildinfo.ReadFile(ctxhook)
	check(err)
	buildID := []byte(hookproto.IDOf(bi))
	for i := 0; i < *calls; i++ {
		if *trace && i%1000 == 0 {
			fmt.Printf("  after %d requests: RSS %s\n", i, rss())
		}
		c, err := net.Dial("unix", p.Socket())
		check(err)
		hookproto.Write(c, buildID, []byte("claude-code"), []byte("PostToolUse"), nil, payload)
		if _, err := hookproto.Read(c); err != nil {
			check(err)
		}
		c.Close()
	}
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.Process.Pid))
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmRSS") || strings.HasPrefix(line, "VmHWM") {
			fmt.Printf("daemon after %d requests (%.0f/s): %s\n", *calls, float64(*calls)/time.Since(start).Seconds(), strings.Join(strings.Fields(line), " "))
		}
	}
}

// throughput times warm PostToolUse hooks whose MCP result is a
// realistic JSON document of each size, holding secrets to redact, and
// how long after each answer its last bytes are searchable. Time per MiB
// should not grow with the size.
func throughput(env []string, client, ctxhook, sizes string) {
	fmt.Printf("\nthroughput: warm PostToolUse (ctxhook-hook, daemon) with a JSON MCP result holding secrets\n")
	fmt.Printf("%8s %10s %10s %10s %16s\n", "MiB", "p50 ms", "MB/s", "ms/MiB", "searchable after")
	var perMiB []float64
	for _, f := range strings.Split(sizes, ",") {
		mib, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || mib <= 0 {
			continue
		}
		var times []time.Duration
		var found []time.Duration
		var n int
		for r := 0; r < 5; r++ {
			marker := fmt.Sprintf("tputM%dR%dX%d", mib, r, time.Now().UnixNano()%1e6)
			p := bigpayload.ClaudePostToolUse(mib<<20, marker, "bench-throughput", "toolu_"+marker)
			n = len(p)
			d := timeOne(env, p, client, "claude-code", "PostToolUse")
			answered := time.Now()
			times = append(times, d)
			for time.Since(answered) < 60*time.Second {
				cmd := exec.Command(ctxhook, "search", "--json", marker)
				cmd.Env = env
				out, _ := cmd.Output()
				if bytes.Contains(out, []byte(`"snippet"`)) && bytes.Contains(out, []byte(marker)) { // a result, not the query echoed
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			found = append(found, time.Since(answered))
		}
		p50 := pct(times, 50)
		mb := float64(n) / 1e6
		per := p50 / (float64(n) / (1 << 20))
		perMiB = append(perMiB, per)
		fmt.Printf("%8d %10.0f %10.1f %10.1f %13.0f ms\n", mib, p50, mb/(p50/1000), per, pct(found, 50))
	}
	if len(perMiB) > 1 {
		lo, hi := perMiB[0], perMiB[0]
		for _, x := range perMiB {
			lo, hi = min(lo, x), max(hi, x)
		}
		fmt.Printf("time per MiB, largest / smallest across sizes: %.2fx\n", hi/lo)
	}
}

func timeOne(env []string, stdin []byte, name string, args ...string) time.Duration {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	start := time.Now()
	cmd.Run()
	return time.Since(start)
}

func pct(xs []time.Duration, p int) float64 {
	s := append([]time.Duration(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return msOf(s[(len(s)-1)*p/100])
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "hookbench:", err)
		os.Exit(1)
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bench is one run: its home, binaries, daemon and timings.
type bench struct {
	o                   options
	work, home          string
	hello               string
	ctxhook, client     string
	env                 []string
	payload, prePayload []byte
	p                   paths.Paths
	daemon              *exec.Cmd
	hooks               *mcp.ClientSession
	secret              string
	series              map[string][]time.Duration
}

// setUp reads the payloads, builds the Go baseline and makes a private
// home whose config relays the payloads' server.
func setUp(o options) *bench {
	b := &bench{o: o, series: map[string][]time.Duration{}}
	var err error
	b.payload, err = os.ReadFile(o.payloadPath)
	check(err)
	b.prePayload, err = os.ReadFile(o.prePath)
	check(err)
	b.work, err = os.MkdirTemp("", "hookbench")
	check(err)
	b.hello = filepath.Join(b.work, "hello")
	os.WriteFile(filepath.Join(b.work, "hello.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	cmd := exec.Command("go", "build", "-o", b.hello, "hello.go")
	cmd.Dir = b.work
	cmd.Env = append(os.Environ(), "GO111MODULE=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "%s", out)
		os.Exit(1)
	}
	b.ctxhook, _ = filepath.Abs(filepath.Join(o.bin, "ctxhook"))
	b.client, _ = filepath.Abs(filepath.Join(o.bin, "ctxhook-hook"))
	b.home = filepath.Join(b.work, "h")
	os.MkdirAll(filepath.Join(b.home, "config"), 0o700)
	os.WriteFile(filepath.Join(b.home, "config", "config.toml"), []byte("[servers.tickets]\nrelay = true\n"), 0o600)
	b.env = append(os.Environ(), "CTXHOOK_HOME="+b.home, "CTXHOOK_DAEMON_IDLE=10m")
	b.p, _ = paths.Resolve(func(k string) string {
		if k == "CTXHOOK_HOME" {
			return b.home
		}
		return ""
	})
	return b
}

func (b *bench) tearDown() {
	if b.hooks != nil {
		b.hooks.Close()
	}
	if b.daemon != nil {
		b.daemon.Process.Kill()
		b.daemon.Wait()
	}
	os.RemoveAll(b.work)
}

// startDaemon starts the daemon and waits for its socket.
func (b *bench) startDaemon() {
	b.daemon = exec.Command(b.ctxhook, "daemon")
	b.daemon.Env = b.env
	check(b.daemon.Start())
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(b.p.Socket()); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startMCP starts `ctxhook mcp` for Claude Code's mcp_tool hooks, with
// the install's secret their calls carry.
func (b *bench) startMCP() {
	check(paths.EnsureDir(b.p.Data))
	var err error
	b.secret, err = hooksecret.Ensure(hooksecret.Path(b.p.Data))
	check(err)
	mc := exec.Command(b.ctxhook, "mcp")
	mc.Env = b.env
	b.hooks, err = mcp.NewClient(&mcp.Implementation{Name: "hookbench", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: mc}, nil)
	check(err)
}

// hookCall sends payload as a tools/call of the hook tool, its fields
// passed as Claude Code interpolates them.
func (b *bench) hookCall(payload []byte) time.Duration {
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
	args[hooksecret.Field] = b.secret
	t0 := time.Now()
	res, err := b.hooks.CallTool(context.Background(), &mcp.CallToolParams{Name: "hook", Arguments: args})
	check(err)
	if res.IsError {
		b, _ := json.Marshal(res.Content)
		check(fmt.Errorf("the hook tool failed: %s", b))
	}
	return time.Since(t0)
}

func (b *bench) warmUp() {
	for i := 0; i < 5; i++ {
		timeOne(b.env, b.payload, b.client, "claude-code", "PostToolUse")
		b.hookCall(b.payload)
	}
}

// hookSeries times every kind of hook and both baselines, interleaved
// round by round so a busy moment falls on all of them.
func (b *bench) hookSeries() {
	_, nodeErr := exec.LookPath("node")
	add := func(k string, d time.Duration) { b.series[k] = append(b.series[k], d) }
	for r := 0; r < b.o.rounds; r++ {
		add("mcptool", b.hookCall(b.payload))
		add("mcptool-pre", b.hookCall(b.prePayload))
		add("cold", timeOne(b.env, b.payload, b.ctxhook, "hook", "claude-code", "PostToolUse"))
		add("warm", timeOne(b.env, b.payload, b.client, "claude-code", "PostToolUse"))
		add("warm-pre", timeOne(b.env, b.prePayload, b.client, "claude-code", "PreToolUse"))
		if nodeErr == nil {
			add("node", timeOne(b.env, nil, "node", "-e", "0"))
		}
		add("hello", timeOne(b.env, nil, b.hello))
		if b.o.cmDir != "" {
			cmEnv := append(os.Environ(), "HOME="+filepath.Join(b.work, "cmhome"), "CLAUDE_PROJECT_DIR="+b.work)
			add("context-mode", timeOne(cmEnv, b.payload, b.o.cmNode, filepath.Join(b.o.cmDir, "hooks", "posttooluse.mjs")))
		}
	}
}

// parallel times 8 warm clients at once.
func (b *bench) parallel() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < b.o.rounds; r++ {
				t := timeOne(b.env, b.payload, b.client, "claude-code", "PostToolUse")
				mu.Lock()
				b.series["parallel8"] = append(b.series["parallel8"], t)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

var hookNames = map[string]string{"cold": "ctxhook hook (cold: no daemon, cache present)", "warm": "ctxhook-hook (warm: daemon)",
	"warm-pre":  "ctxhook-hook PreToolUse (warm)",
	"parallel8": "ctxhook-hook, 8 clients in parallel", "node": "node -e 0", "hello": "Go hello world",
	"context-mode": "context-mode PostToolUse (same payload)",
	"mcptool":      "mcp_tool hook: tools/call on ctxhook mcp", "mcptool-pre": "mcp_tool hook, PreToolUse"}

// printHooks prints the hook table and its ratios to the baselines.
func (b *bench) printHooks(first float64) {
	s := b.series
	wasm, _ := os.Stat("plugin/plugin.wasm")
	fmt.Printf("rounds %d; plugin.wasm %d bytes; PostToolUse payload %d bytes, PreToolUse %d\n", b.o.rounds, wasm.Size(), len(b.payload), len(b.prePayload))
	fmt.Printf("%-44s %8s %8s %8s\n", "command", "p50 ms", "p90 ms", "p99 ms")
	for _, k := range []string{"warm", "warm-pre", "mcptool", "mcptool-pre", "parallel8", "cold", "node", "hello", "context-mode"} {
		if len(s[k]) > 0 {
			fmt.Printf("%-44s %8.1f %8.1f %8.1f\n", hookNames[k], pct(s[k], 50), pct(s[k], 90), pct(s[k], 99))
		}
	}
	fmt.Printf("first-ever hook (no compilation cache): %.0f ms\n", first)
	fmt.Printf("mcp_tool hook against the command hook (ctxhook-hook), p50: PostToolUse %.2fx (%.1f against %.1f ms), PreToolUse %.2fx (%.1f against %.1f ms)\n",
		pct(s["mcptool"], 50)/pct(s["warm"], 50), pct(s["mcptool"], 50), pct(s["warm"], 50),
		pct(s["mcptool-pre"], 50)/pct(s["warm-pre"], 50), pct(s["mcptool-pre"], 50), pct(s["warm-pre"], 50))
	if len(s["node"]) > 0 {
		n50, n99, h50 := pct(s["node"], 50), pct(s["node"], 99), pct(s["hello"], 50)
		fmt.Printf("warm p50: %.3fx node -e 0, %.2fx Go hello; warm p99: %.3fx node -e 0 p99\n",
			pct(s["warm"], 50)/n50, pct(s["warm"], 50)/h50, pct(s["warm"], 99)/n99)
		fmt.Printf("warm PreToolUse p50: %.3fx node -e 0, %.2fx Go hello\n", pct(s["warm-pre"], 50)/n50, pct(s["warm-pre"], 50)/h50)
		fmt.Printf("cold p50: %.2fx node -e 0; 8 parallel p99: %.1f ms\n", pct(s["cold"], 50)/n50, pct(s["parallel8"], 99))
	}
	if len(s["context-mode"]) > 0 {
		fmt.Printf("context-mode PostToolUse p50 / warm ctxhook p50: %.1fx\n", pct(s["context-mode"], 50)/pct(s["warm"], 50))
	}
}

func timeOne(env []string, stdin []byte, name string, args ...string) time.Duration {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = bytesReader(stdin)
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

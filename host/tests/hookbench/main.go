// Command hookbench times whole hook processes side by side with two
// baselines (node -e 0, an empty Go program) and reports ratios: cold
// (`ctxhook hook`, compilation cache present), warm (`ctxhook-hook`, daemon
// running), Claude Code's mcp_tool hooks (a tools/call on a running
// `ctxhook mcp`, the daemon behind it), 8 parallel warm clients, and the
// first-ever hook. It then times the daemon path with big results (1 to
// 64 MiB) beside the cost of only moving their bytes, how far the writer
// lags behind a run of 1 MiB hooks, the daemon's resident memory after a
// 64 MiB result, and drives the daemon with 25,000 requests over its
// socket and reports its resident memory. `make bench` runs it; -only
// picks parts.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

// options are the command line.
type options struct {
	rounds, calls, writerHooks int
	bin, cmDir, cmNode, sizes  string
	payloadPath, prePath, only string
	trace                      bool
}

// parts are what -only may name, in the order they run.
var parts = []string{"hooks", "throughput", "writer", "rss", "memory"}

func parseFlags() options {
	var o options
	flag.IntVar(&o.rounds, "rounds", 40, "interleaved rounds")
	flag.IntVar(&o.calls, "daemon-calls", 25000, "requests for the daemon memory check")
	flag.IntVar(&o.writerHooks, "writer-hooks", 200, "1 MiB hooks in a row for the writer's lag")
	flag.StringVar(&o.bin, "bin", "bin", "directory with ctxhook and ctxhook-hook")
	flag.BoolVar(&o.trace, "trace-rss", false, "print the daemon's RSS every 1,000 requests")
	flag.StringVar(&o.cmDir, "context-mode", "", "an unpacked context-mode package: also time its PostToolUse hook on the same payload")
	flag.StringVar(&o.cmNode, "context-mode-node", "node", "the node binary context-mode needs (1.0.169: Node >= 22.5)")
	flag.StringVar(&o.sizes, "sizes", "1,4,16,64", "payload sizes in MiB for the throughput table (empty: skip)")
	flag.StringVar(&o.payloadPath, "payload", "testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json", "PostToolUse hook payload")
	flag.StringVar(&o.prePath, "pre-payload", "testdata/payloads/claude-code/2.1.330/hook-PreToolUse.json", "PreToolUse hook payload (a smaller one, timed warm too)")
	flag.StringVar(&o.only, "only", strings.Join(parts, ","), "the parts to run, of "+strings.Join(parts, ","))
	flag.Parse()
	return o
}

// runs reports whether -only names part.
func (o options) runs(part string) bool {
	for _, p := range strings.Split(o.only, ",") {
		if strings.TrimSpace(p) == part {
			return true
		}
	}
	return false
}

func main() {
	o := parseFlags()
	b := setUp(o)
	defer b.tearDown()
	var first float64
	if o.runs("hooks") {
		first = msOf(timeOne(b.env, b.payload, b.ctxhook, "hook", "claude-code", "PostToolUse"))
	}
	b.startDaemon()
	if o.runs("hooks") {
		b.startMCP()
		b.warmUp()
		b.hookSeries()
		b.parallel()
		b.printHooks(first)
	}
	if o.runs("throughput") && o.sizes != "" {
		b.throughput(o.sizes)
	}
	if o.runs("writer") {
		b.writerLag(o.writerHooks)
	}
	if o.runs("rss") {
		b.rssAfterBig()
	}
	if o.runs("memory") {
		b.daemonMemory()
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "hookbench:", err)
		os.Exit(1)
	}
}

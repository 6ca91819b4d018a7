package main

import (
	"bytes"
	"debug/buildinfo"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/internal/bigpayload"
	"github.com/ctxhook/ctxhook/internal/homeprocs"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// throughput times warm PostToolUse hooks whose MCP result is a
// realistic JSON document of each size, holding secrets to redact, beside
// the direct cost of the same bytes (a process that reads them: cat),
// the daemon's CPU time to the answer, and how long after each answer
// its last bytes are searchable. Time per MiB should not grow with the
// size; on a busy machine compare the columns of one run, not runs.
func (b *bench) throughput(sizes string) {
	fmt.Printf("\nthroughput: warm PostToolUse (ctxhook-hook, daemon) with a JSON MCP result holding secrets, beside cat of the same bytes\n")
	fmt.Printf("%6s %9s %8s %8s %8s %9s %12s %14s\n", "MiB", "p50 ms", "MB/s", "ms/MiB", "cat ms", "x cat", "CPU ms/MiB", "searchable")
	var perMiB []float64
	for _, f := range strings.Split(sizes, ",") {
		mib, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || mib <= 0 {
			continue
		}
		var times, direct, found, cpu []time.Duration
		var n int
		for r := 0; r < 5; r++ {
			marker := fmt.Sprintf("tputM%dR%dX%d", mib, r, time.Now().UnixNano()%1e6)
			p := bigpayload.ClaudePostToolUse(mib<<20, marker, "bench-throughput", "toolu_"+marker)
			n = len(p)
			direct = append(direct, timeOne(b.env, p, "cat"))
			c0 := homeprocs.CPUTime(b.daemon.Process.Pid)
			times = append(times, timeOne(b.env, p, b.client, "claude-code", "PostToolUse"))
			cpu = append(cpu, homeprocs.CPUTime(b.daemon.Process.Pid)-c0)
			found = append(found, b.searchable(marker, time.Now(), 60*time.Second))
		}
		p50, per := pct(times, 50), pct(times, 50)/(float64(n)/(1<<20))
		perMiB = append(perMiB, per)
		fmt.Printf("%6d %9.0f %8.1f %8.1f %8.0f %9.1f %12.1f %11.0f ms\n", mib, p50, float64(n)/1e6/(p50/1000), per,
			pct(direct, 50), p50/pct(direct, 50), pct(cpu, 50)/(float64(n)/(1<<20)), pct(found, 50))
	}
	if len(perMiB) > 1 {
		lo, hi := perMiB[0], perMiB[0]
		for _, x := range perMiB {
			lo, hi = min(lo, x), max(hi, x)
		}
		fmt.Printf("time per MiB, largest / smallest across sizes: %.2fx\n", hi/lo)
	}
}

// searchable polls `ctxhook search` for marker until it is found or wait
// passes, and returns how long after since that was.
func (b *bench) searchable(marker string, since time.Time, wait time.Duration) time.Duration {
	for time.Since(since) < wait {
		cmd := exec.Command(b.ctxhook, "search", "--json", marker)
		cmd.Env = b.env
		out, _ := cmd.Output()
		if bytes.Contains(out, []byte(`"snippet"`)) && bytes.Contains(out, []byte(marker)) { // a result, not the query echoed
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(since)
}

// writerLag sends n warm 1 MiB hooks in a row, each with its own
// marker, and reports how long after the last answer its marker is
// searchable: whether the writer keeps up with the hooks.
func (b *bench) writerLag(n int) {
	const tmpl = "wlagM0000000X"
	p := bigpayload.ClaudePostToolUse(1<<20, tmpl, "bench-writer", "toolu_"+tmpl)
	start := time.Now()
	var marker string
	for i := 0; i < n; i++ {
		marker = fmt.Sprintf("wlagM%07dX", i)
		timeOne(b.env, bytes.ReplaceAll(p, []byte(tmpl), []byte(marker)), b.client, "claude-code", "PostToolUse")
	}
	answered := time.Now()
	lag := b.searchable(marker, answered, 120*time.Second)
	hooks := answered.Sub(start)
	fmt.Printf("\nwriter: %d x %.2f MB hooks in a row answered in %.1f s (%.1f MB/s); the last searchable %.1f s after its answer\n",
		n, float64(len(p))/1e6, hooks.Seconds(), float64(n*len(p))/1e6/hooks.Seconds(), lag.Seconds())
}

// rssAfterBig sends one 64 MiB hook and reports the daemon's resident
// memory when it answered and 10, 30 and 60 s later.
func (b *bench) rssAfterBig() {
	marker := fmt.Sprintf("rssM%dX", time.Now().UnixNano()%1e6)
	p := bigpayload.ClaudePostToolUse(64<<20, marker, "bench-rss", "toolu_"+marker)
	pid := b.daemon.Process.Pid
	before := statusOf(pid, "VmRSS")
	timeOne(b.env, p, b.client, "claude-code", "PostToolUse")
	answered := time.Now()
	fmt.Printf("\ndaemon RSS after a 64 MiB result (before it: %s):", before)
	for _, at := range []time.Duration{0, 10 * time.Second, 30 * time.Second, 60 * time.Second} {
		time.Sleep(time.Until(answered.Add(at)))
		fmt.Printf(" %ds %s;", int(at.Seconds()), statusOf(pid, "VmRSS"))
	}
	fmt.Printf(" peak %s\n", statusOf(pid, "VmHWM"))
}

// daemonMemory sends many requests over the daemon's socket and reports
// its resident memory after them.
func (b *bench) daemonMemory() {
	start := time.Now()
	pid := b.daemon.Process.Pid
	// The daemon is bin's ctxhook: its requests carry that binary's build
	// id, not this program's (built apart, it may lack VCS stamps).
	bi, err := buildinfo.ReadFile(b.ctxhook)
	check(err)
	buildID := []byte(hookproto.IDOf(bi))
	for i := 0; i < b.o.calls; i++ {
		if b.o.trace && i%1000 == 0 {
			fmt.Printf("  after %d requests: RSS %s\n", i, statusOf(pid, "VmRSS"))
		}
		c, err := net.Dial("unix", b.p.Socket())
		check(err)
		hookproto.Write(c, hookproto.Request{Harness: "claude-code", Event: "PostToolUse", Payload: b.payload}.Fields(string(buildID))...)
		_, err = hookproto.Read(c)
		check(err)
		c.Close()
	}
	rate := float64(b.o.calls) / time.Since(start).Seconds()
	for _, k := range []string{"VmRSS", "VmHWM"} {
		fmt.Printf("daemon after %d requests (%.0f/s): %s: %s\n", b.o.calls, rate, k, statusOf(pid, k))
	}
}

// statusOf is one line of /proc/pid/status, without its name.
func statusOf(pid int, key string) string {
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, key+":") {
			return strings.Join(strings.Fields(line)[1:], " ")
		}
	}
	return "?"
}

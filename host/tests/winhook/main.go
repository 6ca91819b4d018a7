// Command winhook times a warm hook (ctxhook-hook through the daemon's
// named pipe) side by side with a cold one (`ctxhook hook`, in-process,
// compilation cache present) on a real Claude Code payload, then kills
// the daemon and runs the hook client once more: it must fall back to
// in-process. Every answer must be valid JSON. It is built for Windows
// and run under Wine by `make wine` (a few rounds: the checks) and `make
// bench` (more rounds: the warm/cold ratio); it builds and runs on Unix
// too, over the Unix socket.
//
// The warm runs name a ctxhook binary that does not exist (CTXHOOK_BIN):
// a client that did not get its answer through the pipe could not run the
// hook in-process, and would answer nothing, which fails the run.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/internal/testdir"
)

// run is one hook process: its wall time, stdout and stderr.
type run struct {
	took     time.Duration
	out, err []byte
}

// bench is what every step shares.
type bench struct {
	ctxhook, client string
	env             []string
	pre, post       []byte
	p               paths.Paths
}

func main() {
	rounds := flag.Int("rounds", 5, "interleaved warm and cold rounds")
	bin := flag.String("bin", "bin/win", "directory with ctxhook and ctxhook-hook (.exe on Windows)")
	dir := flag.String("payloads", "testdata/payloads/claude-code/2.1.330", "recorded Claude Code payloads")
	flag.Parse()
	b, cleanup, err := setup(*bin, *dir)
	if err == nil {
		err = b.measure(*rounds)
	}
	if err == nil {
		err = b.fallback()
	}
	cleanup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "winhook:", err)
		os.Exit(1)
	}
}

// setup makes a home of its own, with the tickets server relayed, and
// reads the payloads.
func setup(bin, dir string) (*bench, func(), error) {
	home, err := os.MkdirTemp("", "winhook")
	if err != nil {
		return nil, func() {}, err
	}
	cleanup := func() { testdir.Remove(home) } // Wine cannot run os.RemoveAll
	b := &bench{}
	exe := ""
	if filepath.Ext(os.Args[0]) == ".exe" {
		exe = ".exe"
	}
	b.ctxhook, _ = filepath.Abs(filepath.Join(bin, "ctxhook"+exe))
	b.client, _ = filepath.Abs(filepath.Join(bin, "ctxhook-hook"+exe))
	if b.post, err = os.ReadFile(filepath.Join(dir, "hook-PostToolUse.json")); err != nil {
		return nil, cleanup, err
	}
	if b.pre, err = os.ReadFile(filepath.Join(dir, "hook-PreToolUse.json")); err != nil {
		return nil, cleanup, err
	}
	os.MkdirAll(filepath.Join(home, "config"), 0o700)
	os.WriteFile(filepath.Join(home, "config", "config.toml"), []byte("[servers.tickets]\nrelay = true\n"), 0o600)
	b.env = append(os.Environ(), "CTXHOOK_HOME="+home, "CTXHOOK_HOOK_DEADLINE_MS=60000", "CTXHOOK_DAEMON_IDLE=20s")
	b.p, err = paths.Resolve(func(k string) string {
		if k == "CTXHOOK_HOME" {
			return home
		}
		return ""
	})
	return b, cleanup, err
}

// hook runs one hook process with extra environment.
func (b *bench) hook(payload []byte, extra []string, name string, args ...string) run {
	cmd := exec.Command(name, args...)
	cmd.Env = append(append([]string{}, b.env...), extra...)
	cmd.Stdin = bytes.NewReader(payload)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	t0 := time.Now()
	cmd.Run()
	return run{time.Since(t0), out.Bytes(), errOut.Bytes()}
}

// answered fails unless r's stdout is one JSON object.
func answered(what string, r run) error {
	var v map[string]any
	if err := json.Unmarshal(r.out, &v); err != nil {
		return fmt.Errorf("%s: stdout is not a JSON answer (%v): %q; stderr: %s", what, err, r.out, r.err)
	}
	return nil
}

// cold is `ctxhook hook PreToolUse` in-process (the daemon is not asked).
func (b *bench) cold() run {
	return b.hook(b.pre, []string{"CTXHOOK_NO_DAEMON=1"}, b.ctxhook, "hook", "claude-code", "PreToolUse")
}

// warm is the hook client, which can answer only through the daemon.
func (b *bench) warm() run {
	return b.hook(b.pre, []string{"CTXHOOK_BIN=" + filepath.Join(filepath.Dir(b.ctxhook), "no-such-ctxhook")}, b.client, "claude-code", "PreToolUse")
}

// measure stores the call once (PostToolUse, in-process: the plugin is
// compiled into the cache), so that its PreToolUse gets a JSON answer
// (the call was answered before), starts the daemon and times warm and
// cold hooks in turn.
func (b *bench) measure(rounds int) error {
	b.hook(b.post, []string{"CTXHOOK_NO_DAEMON=1"}, b.ctxhook, "hook", "claude-code", "PostToolUse")
	d := exec.Command(b.ctxhook, "daemon")
	d.Env = b.env
	if err := d.Start(); err != nil {
		return err
	}
	defer func() { d.Process.Kill(); d.Wait() }()
	if err := b.awaitDaemon(); err != nil {
		return err
	}
	var warm, cold []time.Duration
	for i := 0; i < rounds+1; i++ {
		w, c := b.warm(), b.cold()
		if err := answered("warm hook (named pipe)", w); err != nil {
			return err
		}
		if err := answered("cold hook (in-process)", c); err != nil {
			return err
		}
		if i > 0 { // the first warms the daemon's instance
			warm, cold = append(warm, w.took), append(cold, c.took)
		}
	}
	w50, c50 := p50(warm), p50(cold)
	fmt.Printf("winhook: %d rounds, PreToolUse of Claude Code 2.1.330: warm (ctxhook-hook, daemon) p50 %.1f ms, cold (ctxhook hook, in-process) p50 %.1f ms\n", rounds, w50, c50)
	fmt.Printf("winhook: warm/cold %.3f\n", w50/c50)
	d.Process.Kill()
	d.Wait()
	return nil
}

// awaitDaemon waits for the daemon to serve: a warm hook answers.
func (b *bench) awaitDaemon() error {
	var last run
	for t0 := time.Now(); time.Since(t0) < 60*time.Second; time.Sleep(200 * time.Millisecond) {
		if _, err := os.Stat(b.p.Socket()); err != nil {
			continue
		}
		if last = b.warm(); answered("", last) == nil {
			return nil
		}
	}
	return fmt.Errorf("the daemon did not answer within a minute: %q %s", last.out, last.err)
}

// fallback runs the hook client with the daemon killed (its endpoint
// left behind, as a killed daemon leaves it): it must answer in-process.
// The daemon it starts for the next hook is left to exit when idle.
func (b *bench) fallback() error {
	r := b.hook(b.pre, []string{"CTXHOOK_DAEMON_IDLE=1s"}, b.client, "claude-code", "PreToolUse")
	if err := answered("hook with the daemon killed (fallback)", r); err != nil {
		return err
	}
	if s := string(r.err); strings.Contains(s, "panic") || strings.Contains(s, "cannot run") {
		return fmt.Errorf("fallback: %s", s)
	}
	fmt.Printf("winhook: daemon killed: the hook client fell back in-process in %.0f ms and answered JSON\n", ms(r.took))
	return b.awaitIdleExit()
}

// awaitIdleExit waits until no daemon holds the home's lock.
func (b *bench) awaitIdleExit() error {
	for t0 := time.Now(); time.Since(t0) < 30*time.Second; time.Sleep(250 * time.Millisecond) {
		f, err := os.OpenFile(filepath.Join(b.p.DaemonDir(), "lock"), os.O_RDWR, 0)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err == nil && platform.TryLock(f) == nil {
			f.Close()
			return nil
		}
		if f != nil {
			f.Close()
		}
	}
	return errors.New("the daemon the fallback started did not exit when idle")
}

func p50(xs []time.Duration) float64 {
	s := append([]time.Duration(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return ms(s[(len(s)-1)/2])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

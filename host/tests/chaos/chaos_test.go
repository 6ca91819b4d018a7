// Package chaos is ctxhook's kill-and-fault suite (`make chaos`): many
// hook processes writing at once while some are killed with SIGKILL, the
// daemon among them; then nothing any hook acknowledged may be missing,
// and the store must pass SQLite's and FTS5's integrity checks. It is a
// test of the built binaries, run only when CTXHOOK_CHAOS is set.
package chaos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/testhooks"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/bigpayload"
	"github.com/ctxhook/ctxhook/internal/homeprocs"
)

func env(t *testing.T, name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func build(t *testing.T) (dir string) {
	dir = t.TempDir()
	for _, pkg := range []string{"ctxhook", "ctxhook-hook"} {
		// With the test knobs (CTXHOOK_TEST_COMPILE_LOG counts compilations).
		if out, err := exec.Command("go", "build", "-tags", testhooks.Tag, "-o", filepath.Join(dir, pkg), "../../cmd/"+pkg).CombinedOutput(); err != nil {
			t.Fatalf("build %s: %s", pkg, out)
		}
	}
	return dir
}

// payload is a real Claude Code PostToolUse with its own marker word in
// the response, so its event can be found afterwards.
func payload(t *testing.T, base map[string]any, marker string) []byte {
	p := map[string]any{}
	for k, v := range base {
		p[k] = v
	}
	p["tool_use_id"] = "toolu_" + marker
	p["tool_response"] = []map[string]string{{"type": "text", "text": "Ticket update " + marker + ": the printer is on fire again"}}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKillChaos: 40 rounds of 16 hooks at once (through the hook client,
// so through the daemon when it is up, else in-process), 30% of them
// SIGKILLed after 0-60 ms, and the daemon SIGKILLed in every fourth
// round. A hook that exited 0 acknowledged its event.
func TestKillChaos(t *testing.T) {
	if os.Getenv("CTXHOOK_CHAOS") == "" {
		t.Skip("set CTXHOOK_CHAOS=1 (make chaos)")
	}
	rounds, writers := env(t, "CTXHOOK_CHAOS_ROUNDS", 40), env(t, "CTXHOOK_CHAOS_WRITERS", 16)
	bin := build(t)
	home, hookEnv, p := newHome(t, "cxc")
	os.MkdirAll(filepath.Join(home, "config"), 0o700)
	os.WriteFile(filepath.Join(home, "config", "config.toml"), []byte("[servers.tickets]\nrelay = true\n"), 0o600)

	raw, err := os.ReadFile("../../../testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	var base map[string]any
	json.Unmarshal(raw, &base)

	rng := rand.New(rand.NewPCG(2026, 11))
	var mu sync.Mutex
	acked := map[string]bool{}
	procs, kills, killed, daemonKills, slow, handedOn := 0, 0, 0, 0, 0, 0
	start := time.Now()
	for r := 0; r < rounds; r++ {
		if r%4 == 3 {
			daemonKills += homeprocs.KillDaemons(home)
		}
		var wg sync.WaitGroup
		for w := 0; w < writers; w++ {
			marker := fmt.Sprintf("chaosR%02dW%02d", r, w)
			cmd := exec.Command(filepath.Join(bin, "ctxhook-hook"), "claude-code", "PostToolUse")
			cmd.Env = hookEnv
			if rng.Float64() < 0.15 {
				// Past its deadline at once: the hook answers and a
				// background process finishes it (hook.Run).
				cmd.Env = append(append([]string{}, hookEnv...), "CTXHOOK_HOOK_DEADLINE_MS=40")
			}
			cmd.Stdin = bytes.NewReader(payload(t, base, marker))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			kill := rng.Float64() < 0.3
			delay := time.Duration(rng.IntN(60)) * time.Millisecond
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			procs++
			if kill {
				kills++
				time.AfterFunc(delay, func() { cmd.Process.Signal(syscall.SIGKILL) })
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				began := time.Now()
				err := cmd.Wait()
				mu.Lock()
				defer mu.Unlock()
				if time.Since(began) > 10*time.Second+500*time.Millisecond {
					slow++
				}
				if ee, ok := err.(*exec.ExitError); ok {
					if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
						killed++
					}
				}
				if err == nil { // exit 0: acknowledged
					acked[marker] = true
					if bytes.Contains(stderr.Bytes(), []byte("finishes in the background")) {
						handedOn++
					}
					if stdout.Len() > 0 && !json.Valid(stdout.Bytes()) {
						t.Errorf("%s: invalid answer %q", marker, stdout.String())
					}
				}
			}()
		}
		wg.Wait()
	}
	// Hooks handed on at their deadline finish in the background.
	for end := time.Now().Add(hookproto.Late); time.Now().Before(end) && homeprocs.Finishers(home) > 0; {
		time.Sleep(50 * time.Millisecond)
	}
	// Whatever is still spooled is stored by the next writer: one more
	// hook, then the daemon's writer, then a final in-process hook.
	// (In the run's home: run with the test's own environment, this hook
	// once started a daemon in the real user's home.)
	one := exec.Command(filepath.Join(bin, "ctxhook-hook"), "claude-code", "PostToolUse")
	one.Env = hookEnv
	one.Stdin = bytes.NewReader(payload(t, base, "chaosWriter"))
	one.Run()
	time.Sleep(500 * time.Millisecond)
	homeprocs.KillDaemons(home)
	last := exec.Command(filepath.Join(bin, "ctxhook"), "hook", "claude-code", "PostToolUse")
	last.Env = hookEnv
	last.Stdin = bytes.NewReader(payload(t, base, "chaosFinal"))
	last.Run()
	spooled, _ := filepath.Glob(filepath.Join(p.SpoolDir(), "*"))

	st, err := store.Open(p.DB(), store.Options{}) // FTS5's check is a write
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Check(); err != nil {
		t.Errorf("integrity: %v", err)
	}
	lost, dups, stored := 0, 0, 0
	for r := 0; r < rounds; r++ {
		for w := 0; w < writers; w++ {
			marker := fmt.Sprintf("chaosR%02dW%02d", r, w)
			hits, err := st.Search(store.ParseQuery(marker), store.SearchOptions{Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) > 0 {
				stored++
			}
			if len(hits) > 1 {
				dups += len(hits) - 1
			}
			if acked[marker] && len(hits) == 0 {
				lost++
				t.Errorf("acknowledged event %s is not in the store", marker)
			}
		}
	}
	t.Logf("%d hook processes in %d rounds of %d; %d SIGKILLs sent, %d landed before the hook finished; daemon SIGKILLed %d times; %v",
		procs, rounds, writers, kills, killed, daemonKills, time.Since(start).Round(time.Second))
	t.Logf("%d acknowledged (%d of them at the deadline, finished in the background), %d stored (%d unacknowledged but stored), %d lost, %d duplicates, %d past the deadline; %d spool files left; integrity checked",
		len(acked), handedOn, stored, stored-len(acked), lost, dups, slow, len(spooled))
	if slow > 0 {
		t.Errorf("%d hooks ran past their deadline", slow)
	}
	if rounds*writers >= 640 && (procs < 300 || killed < 90) {
		t.Errorf("%d processes, %d of them killed: the suite must reach 300 and 90", procs, killed)
	}
}

// newHome is a CTXHOOK_HOME for one chaos run (under the system's temp
// directory: the daemon's socket path must stay short), its daemons
// killed and the directory removed when the test ends; env is what every
// ctxhook process of the run is given.
func newHome(t *testing.T, prefix string) (home string, env []string, p paths.Paths) {
	home, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		homeprocs.KillDaemons(home)
		os.RemoveAll(home)
	})
	env = []string{"CTXHOOK_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH"), "CTXHOOK_DAEMON_IDLE=2m"}
	p, err = paths.Resolve(func(k string) string {
		if k == "CTXHOOK_HOME" {
			return home
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return home, env, p
}

// TestBigDeadlineChaos: 100 PostToolUse hooks (CTXHOOK_CHAOS_BIG) with
// results of 3-64 MiB, four at a time through the hook client, each
// under a deadline drawn from 0.3-4 s, so that many expire mid-call and
// the hook is finished in the background. Every hook must exit 0 with a
// valid answer or none, within its deadline and a second; every result
// must be stored in the end, whole (the term in its last issue found);
// every event an answer points the model to must exist.
func TestBigDeadlineChaos(t *testing.T) {
	if os.Getenv("CTXHOOK_CHAOS") == "" {
		t.Skip("set CTXHOOK_CHAOS=1 (make chaos)")
	}
	n := env(t, "CTXHOOK_CHAOS_BIG", 100)
	bin := build(t)
	home, hookEnv, p := newHome(t, "cxb")

	// As a user starts: install compiles the plugin for this machine.
	// Without the daemon install would start: the test starts its own,
	// with its log kept.
	install := exec.Command(filepath.Join(bin, "ctxhook"), "install", "claude-code")
	install.Env = append(hookEnv, "CTXHOOK_NO_DAEMON=1")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	// The daemon, started as the first hook would, its log kept.
	var daemonLog bytes.Buffer
	d := exec.Command(filepath.Join(bin, "ctxhook"), "daemon", "-v")
	d.Env, d.Stderr = hookEnv, &daemonLog
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		homeprocs.KillDaemons(home)
		d.Wait()
		if t.Failed() {
			t.Logf("daemon log:\n%s", daemonLog.String())
		}
	}()
	rng := rand.New(rand.NewPCG(2026, 12))
	pointer := regexp.MustCompile(`stored as event (e[0-9a-f]+)`)
	type outcome struct {
		marker   string
		mib      int
		deadline time.Duration
		took     time.Duration
		err      error
		stdout   string
		stderr   string
	}
	results := make(chan outcome, n)
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	start := time.Now()
	var bytesIn int64
	for i := 0; i < n; i++ {
		mib := 3 + rng.IntN(62)
		deadline := time.Duration(300+rng.IntN(3700)) * time.Millisecond
		marker := fmt.Sprintf("bigchaos%03d", i)
		in := bigpayload.ClaudePostToolUse(mib<<20, marker, "chaos-big", "toolu_"+marker)
		bytesIn += int64(len(in))
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cmd := exec.Command(filepath.Join(bin, "ctxhook-hook"), "claude-code", "PostToolUse")
			cmd.Env = append(append([]string{}, hookEnv...), fmt.Sprintf("CTXHOOK_HOOK_DEADLINE_MS=%d", deadline.Milliseconds()))
			cmd.Stdin = bytes.NewReader(in)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			began := time.Now()
			err := cmd.Run()
			results <- outcome{marker, mib, deadline, time.Since(began), err, stdout.String(), stderr.String()}
		}()
	}
	wg.Wait()
	close(results)
	answered := time.Since(start)

	var all []outcome
	late, handedOn, failed, pointers := 0, 0, 0, 0
	for o := range results {
		all = append(all, o)
		if o.err != nil {
			failed++
			t.Errorf("%s (%d MiB, deadline %v): %v; stderr %q", o.marker, o.mib, o.deadline, o.err, o.stderr)
		}
		if o.took > o.deadline+time.Second {
			late++
			t.Errorf("%s (%d MiB): answered after %v, deadline %v; stderr %q", o.marker, o.mib, o.took.Round(time.Millisecond), o.deadline, o.stderr)
		}
		if o.stdout != "" && !json.Valid([]byte(o.stdout)) {
			t.Errorf("%s: invalid answer %.200q", o.marker, o.stdout)
		}
		if bytes.Contains([]byte(o.stderr), []byte("finishes in the background")) {
			handedOn++
		}
	}
	// Hooks handed on finish in the background; what they spooled is
	// stored by the daemon's writer or the next hook.
	for end := time.Now().Add(hookproto.Late); time.Now().Before(end) && homeprocs.Finishers(home) > 0; {
		time.Sleep(100 * time.Millisecond)
	}
	// The daemon's writer may be storing a batch; a replay takes the rest.
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if left, _ := filepath.Glob(filepath.Join(p.SpoolDir(), "*.jsonl")); len(left) == 0 {
			break
		}
	}
	replay := exec.Command(filepath.Join(bin, "ctxhook"), "io", "replay")
	replay.Env = hookEnv
	// The daemon finishes the hooks it answered at their deadline one
	// after another: wait while it still stores more of them.
	found := func() (n int) {
		st, err := store.Open(p.DB(), store.Options{ReadOnly: true})
		if err != nil {
			return 0
		}
		defer st.Close()
		for _, o := range all {
			if hits, err := st.Search(store.ParseQuery(o.marker), store.SearchOptions{Limit: 1}); err == nil && len(hits) > 0 {
				n++
			}
		}
		return n
	}
	for n, since := found(), time.Now(); n < len(all) && time.Since(since) < time.Minute; time.Sleep(2 * time.Second) {
		if m := found(); m > n {
			n, since = m, time.Now()
		}
	}
	replay.Run()
	st, err := store.Open(p.DB(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lost := 0
	for _, o := range all {
		hits, err := st.Search(store.ParseQuery(o.marker), store.SearchOptions{Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 {
			lost++
			t.Errorf("%s (%d MiB, deadline %v, %v): %d events hold its last issue, want 1; stderr %q", o.marker, o.mib, o.deadline, o.took.Round(time.Millisecond), len(hits), o.stderr)
		}
		if m := pointer.FindStringSubmatch(o.stdout); m != nil {
			pointers++
			if _, err := st.EventByRef(m[1]); err != nil {
				t.Errorf("%s: the answer points to %s: %v", o.marker, m[1], err)
			}
		}
	}
	if err := st.Check(); err != nil {
		t.Errorf("integrity: %v", err)
	}
	spooled, _ := filepath.Glob(filepath.Join(p.SpoolDir(), "*"))
	t.Logf("%d hooks, %.1f GB of payload, 3-64 MiB each, deadlines 0.3-4 s: all answered in %v; %d at their deadline (finished in the background), %d pointers to stored events, %d failed, %d late, %d lost; %d spool files left",
		len(all), float64(bytesIn)/1e9, answered.Round(time.Second), handedOn, pointers, failed, late, lost, len(spooled))
}

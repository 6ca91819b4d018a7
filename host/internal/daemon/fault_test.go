//go:build unix

package daemon_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/engine"
	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/testhooks"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/homeprocs"
	"github.com/ctxhook/ctxhook/internal/testcache"
)

var bins struct {
	once         sync.Once
	dir, hookBin string
	err          error
}

// build builds ctxhook and ctxhook-hook side by side, as installed, with
// the test knobs (a replacement plugin, a short watchdog, another build's
// id: package testhooks).
func build(t *testing.T) (ctxhook, client string) {
	t.Helper()
	bins.once.Do(func() {
		bins.dir, bins.err = os.MkdirTemp("", "ctxhook-daemon-test-")
		for _, pkg := range []string{"ctxhook", "ctxhook-hook"} {
			if bins.err != nil {
				return
			}
			out, err := exec.Command("go", "build", "-tags", testhooks.Tag, "-o", filepath.Join(bins.dir, pkg), "../../cmd/"+pkg).CombinedOutput()
			if err != nil {
				bins.err = &buildErr{string(out)}
			}
		}
	})
	if bins.err != nil {
		t.Fatal(bins.err)
	}
	return filepath.Join(bins.dir, "ctxhook"), filepath.Join(bins.dir, "ctxhook-hook")
}

type buildErr struct{ out string }

func (e *buildErr) Error() string { return e.out }

type fixture struct {
	t               *testing.T
	home            string
	ctxhook, client string
	env             []string
}

// newFixture is a home whose compilation cache is the one the tests
// share (testcache.LinkWasm): its daemon starts in a second, not after
// compiling the plugin again.
func newFixture(t *testing.T) *fixture {
	f := newColdFixture(t)
	testcache.LinkWasm(f.home)
	return f
}

// newColdFixture is a home with a compilation cache of its own, empty:
// for a test of what a first hook does while the plugin compiles, or of
// the files the cache is made of.
func newColdFixture(t *testing.T) *fixture {
	ctxhook, client := build(t)
	home, err := os.MkdirTemp("", "cxd") // short: the socket path must fit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	os.MkdirAll(filepath.Join(home, "config"), 0o700)
	os.WriteFile(filepath.Join(home, "config", "config.toml"), []byte("[servers.tickets]\nrelay = true\n"), 0o600)
	f := &fixture{t: t, home: home, ctxhook: ctxhook, client: client,
		// A budget a loaded machine keeps (tests of deadlines set their own,
		// later in the environment, which wins): the 10 s default was
		// missed by hooks two busy cores delayed.
		env: []string{"CTXHOOK_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HOME=" + home, "CTXHOOK_HOOK_DEADLINE_MS=120000"}}
	t.Cleanup(f.stopDaemon)
	return f
}

func (f *fixture) paths() paths.Paths {
	p, _ := paths.Resolve(func(k string) string {
		if k == "CTXHOOK_HOME" {
			return f.home
		}
		return ""
	})
	return p
}

// hook runs the client like a harness does and returns what it printed.
func (f *fixture) hook(event string, payload []byte, extraEnv ...string) (stdout, stderr string, took time.Duration) {
	f.t.Helper()
	cmd := exec.Command(f.client, "claude-code", event)
	cmd.Env = append(append([]string{}, f.env...), extraEnv...)
	cmd.Stdin = bytes.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		f.t.Fatalf("hook exited with %v (stderr %q)", err, errb.String())
	}
	return out.String(), errb.String(), time.Since(start)
}

// startDaemon runs `ctxhook daemon` with extra env and waits for its socket.
func (f *fixture) startDaemon(extraEnv ...string) *exec.Cmd {
	f.t.Helper()
	cmd := exec.Command(f.ctxhook, "daemon")
	cmd.Env = append(append([]string{}, f.env...), extraEnv...)
	if err := cmd.Start(); err != nil {
		f.t.Fatal(err)
	}
	for i := 0; i < 1000; i++ { // the daemon compiles the plugin first
		if _, err := os.Stat(f.paths().Socket()); err == nil {
			return cmd
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.t.Fatal("daemon did not start")
	return nil
}

func (f *fixture) stopDaemon() {
	out, _ := exec.Command("pgrep", "-f", f.ctxhook+" daemon").Output()
	for _, pid := range strings.Fields(string(out)) {
		exec.Command("kill", "-9", pid).Run()
	}
	// A daemon spawned by the client runs from the same binary with this
	// home: found by its environment too.
	homeprocs.KillAll(f.home)
}

func (f *fixture) events() int64 {
	st, err := store.Open(f.paths().DB(), store.Options{ReadOnly: true})
	if err != nil {
		return 0
	}
	defer st.Close()
	s, _ := st.Stats("")
	return s.Events
}

// settled waits (up to 5 s) until want events are stored: the daemon
// answers before its writer stores what it spooled. It returns the count
// it saw last.
func (f *fixture) settled(want int64) int64 {
	var n int64
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if n = f.events(); n >= want {
			break
		}
	}
	return n
}

func payload(t *testing.T, event string) []byte {
	b, err := os.ReadFile("../../../testdata/payloads/claude-code/2.1.330/hook-" + event + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWarmMatchesInProcess: the same four calls through the daemon and
// in-process (CTXHOOK_NO_DAEMON) print the same bytes.
func TestWarmMatchesInProcess(t *testing.T) {
	warm, cold := newFixture(t), newFixture(t)
	warm.startDaemon()
	for _, ev := range []string{"SessionStart", "PreToolUse", "PostToolUse", "PostToolUse"} {
		w, werr, _ := warm.hook(ev, payload(t, ev))
		c, cerr, _ := cold.hook(ev, payload(t, ev), "CTXHOOK_NO_DAEMON=1")
		if w != c || werr != cerr {
			t.Errorf("%s: daemon %q %q, in-process %q %q", ev, w, werr, c, cerr)
		}
	}
	if w, c := warm.settled(3), cold.events(); w != 3 || c != 3 {
		t.Errorf("events: daemon %d, in-process %d, want 3 each", w, c)
	}
}

// TestFaults: whatever is wrong with the daemon, each hook answers
// correctly within its deadline and its event is stored.
func TestFaults(t *testing.T) {
	want, _, _ := newFixture(t).hook("PostToolUse", payload(t, "PostToolUse"), "CTXHOOK_NO_DAEMON=1")
	if !strings.Contains(want, "additionalContext") {
		t.Fatalf("reference answer %q", want)
	}
	tests := []struct {
		name  string
		setup func(f *fixture)
	}{
		{"no daemon", func(f *fixture) {}},
		{"stale socket", func(f *fixture) {
			sock := f.paths().Socket()
			os.MkdirAll(filepath.Dir(sock), 0o700)
			fd, _ := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
			syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock})
			syscall.Close(fd) // bound, never listening: a dead daemon's socket
		}},
		{"socket owned by another user", func(f *fixture) {
			f.startDaemon()
			os.Lchown(f.paths().Socket(), 12345, 12345)
		}},
		{"daemon of another build", func(f *fixture) {
			f.startDaemon("CTXHOOK_DAEMON_TEST_BUILD_ID=other-build")
		}},
		{"daemon hung", func(f *fixture) {
			f.startDaemon("CTXHOOK_DAEMON_TEST_DELAY_MS=60000")
		}},
		{"daemon killed mid-call", func(f *fixture) {
			d := f.startDaemon("CTXHOOK_DAEMON_TEST_DELAY_MS=1500")
			go func() {
				time.Sleep(500 * time.Millisecond)
				d.Process.Kill()
			}()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			tt.setup(f)
			// An explicit budget, generous for a loaded machine: what is
			// tested is that the hook keeps it, whatever the daemon does.
			const deadline = 20 * time.Second
			out, _, took := f.hook("PostToolUse", payload(t, "PostToolUse"), fmt.Sprintf("CTXHOOK_HOOK_DEADLINE_MS=%d", deadline.Milliseconds()))
			if out != want {
				t.Errorf("answer %q, want %q", out, want)
			}
			if took > deadline {
				t.Errorf("took %v, past its %v deadline", took, deadline)
			}
			if n := f.settled(1); n < 1 {
				t.Errorf("event lost: %d stored", n)
			}
		})
	}
}

// TestFinishedLate: a hook that cannot decide within its deadline (here
// 50 ms, on a cold compilation cache) answers the agent at once and does
// not lose its event: a background process finishes the hook, and the
// event is stored, once.
func TestFinishedLate(t *testing.T) {
	f := newColdFixture(t)
	out, errOut, _ := f.hook("PostToolUse", payload(t, "PostToolUse"), "CTXHOOK_NO_DAEMON=1", "CTXHOOK_HOOK_DEADLINE_MS=50")
	if out != "" || !strings.Contains(errOut, "finishes in the background") {
		t.Fatalf("answer %q, stderr %q: want no answer and the hand-off named", out, errOut)
	}
	var n int64
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end) && n == 0; time.Sleep(50 * time.Millisecond) {
		n = f.events()
	}
	if n == 0 {
		t.Fatal("the event was not stored by the finisher")
	}
	time.Sleep(300 * time.Millisecond)
	if n = f.events(); n != 1 {
		t.Errorf("%d events stored, want 1", n)
	}
	// The finisher answered nobody, and it ran the hook through: the
	// relay state it wrote is there for the next call.
	st, err := os.ReadDir(f.paths().StateDir())
	if err != nil || len(st) == 0 {
		t.Errorf("no state written by the finisher (%v)", err)
	}
}

// TestStuckGuest: a guest call that never returns ends the daemon at its
// watchdog even when the Go runtime itself stands still. The plugin here
// loops forever on a payload naming "loop", in a daemon where every
// allocation starts a collection (GOGC=1): the second hook's request is
// read while the first loops, so the runtime stops the world and waits
// for the looping call, timers and all. The hooks answer in-process
// meanwhile.
func TestStuckGuest(t *testing.T) {
	wasm := faultyWasm(t)
	f := newFixture(t)
	d := f.startDaemon("CTXHOOK_TEST_PLUGIN="+wasm, "CTXHOOK_DAEMON_TEST_WATCHDOG_MS=1500", "GOGC=1")
	exited := make(chan error, 1)
	go func() { exited <- d.Wait() }()

	var p map[string]any
	json.Unmarshal(payload(t, "PostToolUse"), &p)
	p["note"] = "loop"
	looping, _ := json.Marshal(p)
	first := exec.Command(f.client, "claude-code", "PostToolUse")
	first.Env = f.env
	first.Stdin = bytes.NewReader(looping)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if out, _, _ := f.hook("PostToolUse", payload(t, "PostToolUse")); !strings.Contains(out, "hookSpecificOutput") && out != "" {
		t.Errorf("second hook answered %q", out)
	}
	if err := first.Wait(); err != nil {
		t.Errorf("first hook: %v", err)
	}
	select {
	case err := <-exited:
		t.Logf("daemon ended: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the daemon still runs 20 s after a call overran its 1.5 s watchdog")
	}
}

// faultyWasm builds the plugin that misbehaves on request.
func faultyWasm(t *testing.T) string {
	wasm := filepath.Join(t.TempDir(), "faulty.wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", wasm, "../../runner/testdata/faulty")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s", b)
	}
	return wasm
}

// TestStuckGuestInProcess: `ctxhook hook` with a plugin that loops
// answers at its deadline and hands the hook on; the late run's
// decision is bounded by the kernel's timer (10 s for a small payload),
// so it ends then instead of spending its two minutes on the loop. GOMAXPROCS=1, as Go sets it under a
// one-CPU quota: the looping call must not hold the only P the deadline's
// timer could run on.
func TestStuckGuestInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("a plugin that loops until the deadline (-short)")
	}
	f := newFixture(t)
	cmd := exec.Command(f.ctxhook, "hook", "claude-code", "PostToolUse")
	// After f.env: of two values exec.Cmd keeps the last, and f.env's
	// deadline is two minutes.
	cmd.Env = append(append([]string{}, f.env...), "CTXHOOK_TEST_PLUGIN="+faultyWasm(t), "CTXHOOK_HOOK_DEADLINE_MS=1000", "GOMAXPROCS=1")
	cmd.Stdin = strings.NewReader(`{"session_id":"s","hook_event_name":"PostToolUse","note":"loop"}`)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Run(); err != nil || out.Len() != 0 || !strings.Contains(errb.String(), "no answer within 1s") ||
		!strings.Contains(errb.String(), "finishes in the background") {
		t.Fatalf("exit %v, stdout %q, stderr %q", err, out.String(), errb.String())
	}
	// The answer at the deadline, and the payload handed on within
	// hookproto.Grace: a process that held the hook (or its stderr) while
	// the plugin looped would take minutes.
	if took := time.Since(start); took > 1*time.Second+hookproto.Grace+3*time.Second {
		t.Fatalf("the hook took %v to exit, with a deadline of 1 s", took)
	}
	late := func() (n int) {
		procs, _ := filepath.Glob("/proc/[0-9]*/environ")
		for _, p := range procs {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte("CTXHOOK_HOME="+f.home+"\x00")) && bytes.Contains(b, []byte(engine.EnvLate+"=1")) {
				n++
			}
		}
		return n
	}
	end := time.Now().Add(30 * time.Second)
	for late() > 0 && time.Now().Before(end) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := late(); n > 0 {
		t.Fatalf("the late run of a looping hook still runs after 30 s")
	}
}

// TestOneDaemon: ten clients racing to start the daemon end with one.
func TestOneDaemon(t *testing.T) {
	f := newFixture(t)
	// The compilation cache is warm, as `ctxhook install` leaves it.
	f.hook("SessionStart", payload(t, "SessionStart"), "CTXHOOK_NO_DAEMON=1")
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs, took := f.hook("PostToolUse", payload(t, "PostToolUse"))
			// A writer that finds the store busy spools; anything else is wrong.
			if errs != "" && !strings.Contains(errs, "events spooled for later") {
				t.Errorf("stderr after %v: %s", took, errs)
			}
		}()
	}
	wg.Wait()
	time.Sleep(1500 * time.Millisecond)
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		cmdline, _ := os.ReadFile(strings.Replace(p, "environ", "cmdline", 1))
		if err == nil && bytes.Contains(b, []byte("CTXHOOK_HOME="+f.home+"\x00")) && bytes.Contains(cmdline, []byte("daemon")) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d daemons running, want 1", n)
	}
	// Writers that found the store busy spooled their events; the next
	// write replays the spool. Nothing may be missing after it.
	spooled, _ := filepath.Glob(filepath.Join(f.paths().SpoolDir(), "*"))
	f.hook("PostToolUse", payload(t, "PostToolUse"))
	if e := f.settled(12); e != 12 {
		t.Errorf("%d events stored after replay, want 12 (%d spool files before)", e, len(spooled))
	}
}

// TestAnsweredBeforeStored: the daemon answers once the event is in the
// spool; its writer stores it after. What a killed daemon left in the
// spool (a file, or one it was storing) is stored by the next daemon.
func TestAnsweredBeforeStored(t *testing.T) {
	f := newFixture(t)
	d := f.startDaemon()
	f.hook("PostToolUse", payload(t, "PostToolUse"))
	if n := f.settled(1); n != 1 {
		t.Fatalf("%d events stored, want 1", n)
	}
	d.Process.Kill()
	d.Wait()
	// Leave what a daemon killed between answer and store leaves: one
	// spool file, and one claimed by a writer that died mid-transaction.
	spool := f.paths().SpoolDir()
	line := []byte(`{"events":[{"ts_ms":1,"session":"s","harness":"claude-code","hook_event":"PostToolUse","category":"mcp","tool":"t","text":"left behind"}]}` + "\n")
	os.WriteFile(filepath.Join(spool, "1-1-1.jsonl"), line, 0o600)
	os.WriteFile(filepath.Join(spool, "2-1-1.jsonl.replaying-2147483646"), line, 0o600)
	f.startDaemon()
	if n := f.settled(3); n != 3 {
		t.Errorf("%d events stored, want 3", n)
	}
	// The writer deletes a spool file once it has read its events back
	// from the store, a moment after they are searchable: on a loaded
	// machine the file was still there when the events were.
	var left []string
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if left, _ = filepath.Glob(filepath.Join(spool, "*")); len(left) == 0 || time.Now().After(end) {
			break
		}
	}
	if len(left) != 0 {
		t.Errorf("spool not emptied 10 s after its events were stored: %v", left)
	}
}

// TestPermissions: whatever the umask, every file ctxhook creates (store,
// -wal, -shm, state, locks, spool, the daemon's lock and socket, the
// compilation cache) is 0600 and every directory 0700.
func TestPermissions(t *testing.T) {
	masks := []int{0o002, 0o022, 0}
	if testing.Short() {
		masks = masks[:1] // -short: the umask that lets the group write
	}
	for _, mask := range masks {
		t.Run(fmt.Sprintf("umask %03o", mask), func(t *testing.T) {
			old := syscall.Umask(mask)
			defer syscall.Umask(old)
			f := newColdFixture(t)
			// The first hook spawns the daemon and answers in-process (the
			// store, state, the cache); the later ones go to the daemon
			// (its spool, its writer).
			for _, ev := range []string{"SessionStart", "PreToolUse", "PostToolUse"} {
				f.hook(ev, payload(t, ev))
			}
			for i := 0; i < 100; i++ {
				if _, err := os.Stat(f.paths().Socket()); err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			f.hook("PostToolUse", payload(t, "PostToolUse"))
			if n := f.settled(2); n < 2 {
				t.Fatalf("%d events stored", n)
			}
			// A reader keeps -wal and -shm in place while we look.
			st, err := store.Open(f.paths().DB(), store.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			seen := map[string]bool{}
			filepath.WalkDir(f.home, func(path string, d fs.DirEntry, err error) error {
				if err != nil || path == f.home {
					return nil
				}
				fi, err := os.Lstat(path)
				if err != nil {
					return nil
				}
				want := fs.FileMode(0o600)
				if fi.IsDir() {
					want = 0o700
				}
				if fi.Mode().Perm() != want {
					t.Errorf("%s: %v, want %v", path, fi.Mode().Perm(), want)
				}
				if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
					t.Errorf("%s: owned by %d", path, st.Uid)
				}
				switch {
				case strings.HasSuffix(path, "-wal"), strings.HasSuffix(path, "-shm"), strings.HasSuffix(path, ".db"):
					seen[filepath.Ext(path)+path[len(path)-4:]] = true
				case fi.Mode()&fs.ModeSocket != 0:
					seen["socket"] = true
				case strings.Contains(path, "wasm"):
					seen["cache"] = true
				case strings.Contains(path, "sessions"):
					seen["state"] = true
				}
				return nil
			})
			if len(seen) < 6 {
				t.Errorf("looked at %v: not every kind of file was there", seen)
			}
		})
	}
}

// TestMain removes what the package's tests built once for all of them.
func TestMain(m *testing.M) {
	code := m.Run()
	if bins.dir != "" {
		os.RemoveAll(bins.dir)
	}
	os.Exit(code)
}

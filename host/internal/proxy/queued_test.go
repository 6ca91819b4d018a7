package proxy_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/daemon"
	"github.com/ctxhook/ctxhook/host/internal/decider"
	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/homeprocs"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLateFinished: a decision the daemon answers late is finished
// under its request id (decider.Finish, as the proxy does when it points
// at the event), and its event is stored exactly once: when the run was
// still queued at its deadline (the daemon's one instance spinning on a
// slow payload, the faulty plugin's CTXHOOK_TEST_SLOW) and dropped, and
// when it ran late and ended before it was asked again (not run twice).
func TestLateFinished(t *testing.T) {
	if testing.Short() {
		t.Skip("payloads queued behind a slow one (-short)")
	}
	wasm := faultyWasm(t)
	f := connectWith(t, []string{"--timeout", "120s", "--", "/usr/bin/env", "PROXY_TEST_ROLE=server", os.Args[0]},
		[]string{"CTXHOOK_NO_DAEMON=", "CTXHOOK_TEST_PLUGIN=" + wasm, "CTXHOOK_DAEMON_TEST_WATCHDOG_MS=120000", "CTXHOOK_HOOK_DEADLINE_MS=1500"})
	t.Cleanup(func() { stopDaemons(t, f.home) })
	waitDaemon(t, f.home)
	getenv := func(k string) string {
		switch k {
		case "CTXHOOK_HOME":
			return f.home
		case "CTXHOOK_TEST_PLUGIN":
			return wasm
		}
		return ""
	}
	p, _ := paths.Resolve(getenv)
	d := decider.New(getenv, p, func(kind, format string, a ...any) { t.Logf(format, a...) })
	defer d.Close()
	late := func(id, text string) []byte {
		payload := lateMessage(id, text)
		if _, err := d.DecideWithin(context.Background(), id, abi.HarnessMCPProxy, abi.ProxyResponse, payload, 1500*time.Millisecond); !errors.Is(err, decider.ErrLate) {
			t.Fatalf("%s: %v, want a late decision", id, err)
		}
		return payload
	}
	t.Run("dropped while queued", func(t *testing.T) {
		var slow sync.WaitGroup
		defer slow.Wait()
		slow.Add(1)
		busy := daemonCPU(t, f.home)
		go func() { defer slow.Done(); occupyDaemon(t, f.home, 0) }()
		busy()
		payload := late("queued-1", strings.Repeat("queued result line\\n", 100000)+" queuedmark")
		if err := d.Finish(context.Background(), "queued-1", abi.HarnessMCPProxy, abi.ProxyResponse, payload); err != nil {
			t.Fatal(err)
		}
		storedOnce(t, f.home, "queuedmark")
	})
	t.Run("ended before asked again", func(t *testing.T) {
		t0 := time.Now()
		payload := late("ran-1", "CTXHOOK_TEST_SLOW ranmark")
		eventsFound(t, f.home, "ranmark", 60*time.Second)
		run := time.Since(t0)
		t0 = time.Now()
		if err := d.Finish(context.Background(), "ran-1", abi.HarnessMCPProxy, abi.ProxyResponse, payload); err != nil {
			t.Fatal(err)
		}
		// The event's key is the same either way; a second run would
		// spin as long again (and move the session's state twice).
		if again := time.Since(t0); again > run/2 {
			t.Errorf("asked again, the ended run took %v (the run %v): decided twice", again, run)
		}
		storedOnce(t, f.home, "ranmark")
	})
}

// lateMessage is a proxy response payload for a tools/call result text.
func lateMessage(id, text string) []byte {
	return []byte(`{"session_id":"late-` + id + `","server":"wf","message":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + text + `"}]}},` +
		`"request":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}}`)
}

// storedOnce checks that marker is in exactly one stored event, also a
// little later (when a second run would have stored its own).
func storedOnce(t *testing.T, home, marker string) {
	t.Helper()
	if n := eventsFound(t, home, marker, 60*time.Second); n != 1 {
		t.Fatalf("%d events hold %s, want 1", n, marker)
	}
	time.Sleep(2 * time.Second)
	if n := eventsFound(t, home, marker, 0); n != 1 {
		t.Errorf("%d events hold %s, want 1", n, marker)
	}
}

// occupyDaemon asks the daemon under home to decide a slow payload
// (several seconds of spinning), with a deadline of a minute.
func occupyDaemon(t *testing.T, home string, i int) {
	p, _ := paths.Resolve(func(k string) string {
		if k == "CTXHOOK_HOME" {
			return home
		}
		return ""
	})
	c := &daemon.Client{Paths: p}
	defer c.Close()
	payload := `{"session_id":"other","server":"wf","message":{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"CTXHOOK_TEST_SLOW"}]}},` +
		`"request":{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":{}}}}`
	req := hookproto.Request{Harness: abi.HarnessMCPProxy, Event: abi.ProxyResponse, ID: "slow-" + string(rune('a'+i)), Deadline: time.Minute, Payload: []byte(payload)}
	t0 := time.Now()
	if _, err := c.Ask(req, 62*time.Second); err != nil {
		t.Errorf("the slow payload: %v", err)
	}
	t.Logf("slow payload %d decided in %v", i, time.Since(t0))
}

// daemonCPU notes the CPU time of the daemon under home and returns a
// func that waits until the daemon has spent 200 ms more: the slow
// payload occupyDaemon sent is being decided, so a request sent now
// queues behind it. A fixed sleep was not enough on a loaded machine,
// where the slow request had not reached the daemon yet and the next
// one was decided in time.
func daemonCPU(t *testing.T, home string) (busy func()) {
	t.Helper()
	pids := homeprocs.Daemons(home)
	if len(pids) != 1 {
		t.Fatalf("daemons under %s: %v, want one", home, pids)
	}
	base := homeprocs.CPUTime(pids[0])
	return func() {
		t.Helper()
		for end := time.Now().Add(30 * time.Second); homeprocs.CPUTime(pids[0])-base < 200*time.Millisecond; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatal("the daemon did not start on the slow payload within 30 s")
			}
		}
	}
}

// eventsFound waits up to wait for the store under home to find marker,
// and returns in how many events.
func eventsFound(t *testing.T, home, marker string, wait time.Duration) int {
	t.Helper()
	for end := time.Now().Add(wait); ; time.Sleep(200 * time.Millisecond) {
		st, err := store.Open(filepath.Join(home, "state", "ctxhook.db"), store.Options{ReadOnly: true})
		if err == nil {
			hits, serr := st.Search(store.ParseQuery(marker), store.SearchOptions{})
			st.Close()
			if serr == nil && len(hits) > 0 {
				return len(hits)
			}
		}
		if time.Now().After(end) {
			return 0
		}
	}
}

// TestLateStoredAfterClientLeaves: a 2 MiB result's decision is queued
// behind a slow one in the daemon's only instance, so it is late and
// the client gets the proxy's pointer; the client then leaves at once.
// The proxy waits for the decision it is finishing before it exits, so
// the event the pointer names is stored, once. Without the wait the
// daemon has dropped the queued run and nothing stores it.
func TestLateStoredAfterClientLeaves(t *testing.T) {
	if testing.Short() {
		t.Skip("a payload queued behind a slow one (-short)")
	}
	wasm := faultyWasm(t)
	f := connectWith(t, []string{"--timeout", "120s", "--", "/usr/bin/env", "PROXY_TEST_ROLE=server", os.Args[0]},
		[]string{"CTXHOOK_NO_DAEMON=", "CTXHOOK_TEST_PLUGIN=" + wasm, "CTXHOOK_DAEMON_TEST_WATCHDOG_MS=120000", "CTXHOOK_HOOK_DEADLINE_MS=1500"})
	t.Cleanup(func() { stopDaemons(t, f.home) })
	waitDaemon(t, f.home)
	if r, err := f.call(t, "start_session", map[string]any{}); err != nil || r.IsError {
		t.Fatalf("start_session: %v %s", err, text(r))
	}
	var slow sync.WaitGroup
	defer slow.Wait()
	slow.Add(1)
	busy := daemonCPU(t, f.home)
	go func() { defer slow.Done(); occupyDaemon(t, f.home, 0) }()
	busy()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := f.session.CallTool(ctx, &mcp.CallToolParams{Name: "step", Arguments: map[string]any{"n": 1, "issues": 2 << 20}})
	if err != nil || r.IsError {
		t.Fatalf("the queued step: %v %.300s\nstderr: %s", err, text(r), f.stderr)
	}
	if !regexp.MustCompile(`stored as event e[0-9a-f]{16}`).MatchString(text(r)) {
		t.Fatalf("want the proxy's pointer, got %.600s\nstderr: %s", text(r), f.stderr)
	}
	f.closed = true
	f.session.Close()
	exited := make(chan error, 1)
	go func() { exited <- f.proc.Wait() }()
	select {
	case <-exited:
	case <-time.After(100 * time.Second): // the proxy waits up to 65 s
		f.proc.Process.Kill()
		t.Fatalf("the proxy did not exit after its client left\nstderr: %s", f.stderr)
	}
	// The daemon took the decision before the proxy exited; its writer
	// stores the event a moment later.
	if n := eventsFound(t, f.home, "step1", 60*time.Second); n != 1 {
		t.Fatalf("%d events hold the late result after the proxy exited, want 1\nstderr: %s", n, f.stderr)
	}
}

package team

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestOffline: the database is stopped for 60 s while 1,000 hooks run
// across the six homes. Every hook answers within its deadline (the
// hooks never wait on the network), `ctxhook store status` says how many
// wait, and once the database is back every event arrives exactly once.
func TestOffline(t *testing.T) {
	needPG(t)
	if testing.Short() {
		t.Skip("a 60 s outage (runs without -short)")
	}
	hs := homes(t)
	for _, h := range hs { // each home's daemon up and its plugin compiled first
		if _, err := h.hook(t, h.payload(t, "tickets", "warm-up of "+h.machine)); err != nil {
			t.Fatal(err)
		}
	}
	const total, outage, deadline = 1000, 60 * time.Second, 10 * time.Second
	if err := cluster.Pause(); err != nil {
		t.Fatal(err)
	}
	paused := time.Now()
	resumed := false
	defer func() {
		if !resumed {
			cluster.Resume()
		}
	}()
	took := runHooks(t, hs, total)
	ran := time.Since(paused)
	slowest, p50, p99 := took[len(took)-1], took[len(took)/2], took[len(took)*99/100]
	// The hook client answers by its deadline; the slack is for starting
	// and ending a process on a machine shared with other work (the
	// whole-process time is measured here, not the hook's own).
	if slowest > deadline+slack {
		t.Errorf("the slowest hook took %v, past its %v deadline (+%v slack)", slowest, deadline, slack)
	}
	time.Sleep(5 * time.Second) // the shippers try, and fail
	out, _, _ := hs[0].ctxhook(t, "store", "status")
	if !contains(out, "unreachable", "wait in the local store") {
		t.Errorf("store status during the outage: %q", out)
	}
	time.Sleep(time.Until(paused.Add(outage)))
	if err := cluster.Resume(); err != nil {
		t.Fatal(err)
	}
	resumed = true
	back := time.Now()
	n := waitFor(t, 150*time.Second, total, `SELECT count(*) FROM ctxhook_events WHERE body_text LIKE 'offline-marker %'`)
	distinct := adminCount(t, `SELECT count(DISTINCT body_text) FROM ctxhook_events WHERE body_text LIKE 'offline-marker %'`)
	t.Logf("%d hooks in %v while down (p50 %v, p99 %v, slowest %v); all arrived %v after the database returned",
		total, ran, p50, p99, slowest, time.Since(back))
	if n != total || distinct != total {
		t.Fatalf("%d events arrived (%d distinct), want %d exactly once", n, distinct, total)
	}
	time.Sleep(3 * time.Second) // a late duplicate would show now
	if n := adminCount(t, `SELECT count(*) FROM ctxhook_events WHERE body_text LIKE 'offline-marker %'`); n != total {
		t.Fatalf("%d events after a further wait, want %d", n, total)
	}
}

// slack is what a whole hook process may take past its deadline.
const slack = 5 * time.Second

// runHooks runs total hooks, one worker per home, and returns their
// times, sorted. A hook that fails fails the test.
func runHooks(t *testing.T, hs []*home, total int) []time.Duration {
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	for w, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < total; i += len(hs) {
				text := fmt.Sprintf("offline-marker %04d from %s on %s", i, h.user, h.machine)
				took, err := h.hook(t, h.payload(t, "tickets", text))
				mu.Lock()
				all = append(all, took)
				mu.Unlock()
				if err != nil {
					t.Errorf("hook %d: %v", i, strings.TrimSpace(err.Error()))
				}
			}
		}()
	}
	wg.Wait()
	slices.Sort(all)
	return all
}

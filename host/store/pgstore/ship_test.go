package pgstore

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/storetest"
	"github.com/ctxhook/ctxhook/internal/testdir"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

func localStore(t *testing.T, n int) *store.Store {
	t.Helper()
	l, err := store.Open(filepath.Join(testdir.New(t), "data", "ctxhook.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	addLocal(t, l, 0, n)
	return l
}

func addLocal(t *testing.T, l *store.Store, from, n int) {
	t.Helper()
	var evs []abi.Event
	for i := from; i < from+n; i++ {
		evs = append(evs, storetest.Ev("s", "jira", "mcp__jira__get_issue", fmt.Sprintf("event number ev%05d", i)))
	}
	if _, err := l.Apply(evs, []abi.Effect{{Op: abi.OpTally, Session: "s", Name: abi.TallyRelayed, Count: 1}}); err != nil {
		t.Fatal(err)
	}
}

// TestShipExactlyOnce: shipping resumes where the database says it left
// off, a retried batch (its commit's answer lost) is skipped, and new
// local events follow.
func TestShipExactlyOnce(t *testing.T) {
	needPG(t)
	_, url := newUser(t)
	remote := openAs(t, url, Options{Machine: "laptop"})
	defer remote.Close()
	local := localStore(t, 450)
	ctx := context.Background()
	got, err := remote.Ship(ctx, local, nil)
	if err != nil || got.Events != 450 || got.Pending != 0 {
		t.Fatalf("first ship: %+v %v", got, err)
	}
	if got, err = remote.Ship(ctx, local, nil); err != nil || got.Events != 0 {
		t.Fatalf("second ship: %+v %v", got, err)
	}
	first, _ := local.EventsAfter(0, 10, ShipBatchBytes)
	if n, skipped, _, err := remote.shipBatch(ctx, first); err != nil || n != 0 || skipped != 10 {
		t.Fatalf("retried batch: %d new, %d skipped, %v", n, skipped, err)
	}
	addLocal(t, local, 450, 5)
	if got, err = remote.Ship(ctx, local, nil); err != nil || got.Events != 5 {
		t.Fatalf("third ship: %+v %v", got, err)
	}
	if st, _ := remote.Stats(""); st.Events != 455 {
		t.Fatalf("%d events in the database, want 455", st.Events)
	}
	// Another machine of the same user ships its own local ids 1..n too.
	other := openAs(t, url, Options{Machine: "devbox"})
	defer other.Close()
	if got, err := other.Ship(ctx, localStore(t, 3), nil); err != nil || got.Events != 3 {
		t.Fatalf("second machine: %+v %v", got, err)
	}
}

package team

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/pgstore"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

var words = strings.Fields(`checkout payments deploy rollback printer latency timeout database index
	migration kafka consumer lag alert grafana dashboard sentry exception nullpointer memory leak
	cache eviction redis cluster failover replica schema vacuum queue retry backoff token quota`)

// corpus writes n seeded events into a new local store at path.
func corpus(t *testing.T, path string, n int) {
	st, err := store.Open(path, store.Options{})
	must(t, err)
	defer st.Close()
	rng := rand.New(rand.NewPCG(32, uint64(n)))
	for i := 0; i < n; i += 500 {
		var evs []abi.Event
		for j := i; j < min(i+500, n); j++ {
			var b strings.Builder
			for k := 0; k < 12+rng.IntN(30); k++ {
				b.WriteString(words[rng.IntN(len(words))] + " ")
			}
			fmt.Fprintf(&b, "CVX-%d svc%dHandler", rng.IntN(5000), rng.IntN(300))
			evs = append(evs, abi.Event{TimeMS: int64(1_700_000_000_000 + j), Session: "s" + strconv.Itoa(j%40),
				Harness: "claude-code", HookEvent: "PostToolUse", Category: "mcp", Server: []string{"jira", "sentry"}[j%2],
				Tool: "mcp__jira__get", Args: `{"id":` + strconv.Itoa(j) + `}`, Text: b.String(), Response: `[]`})
		}
		if _, err := st.Apply(evs, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMigrateRoundTrip moves a store to PostgreSQL and back with
// `ctxhook store migrate`, each way twice: nothing is duplicated, and 20
// searches give the same events in the same order as the original.
// CTXHOOK_TEAM_MIGRATE_N sets the size (default 10,000; the acceptance
// run uses 100,000).
func TestMigrateRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 events migrated both ways (-short)")
	}
	needPG(t)
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("CTXHOOK_TEAM_MIGRATE_N")); err == nil && v > 0 {
		n = v
	}
	must(t, pgstore.AddUser(context.Background(), adminURL, "dave", password("dave")))
	h := &home{user: "dave", machine: "old-laptop", dir: t.TempDir()}
	h.setUp(t)
	orig := filepath.Join(h.dir, "state", "ctxhook.db")
	corpus(t, orig, n)
	url := fmt.Sprintf("postgres://dave@127.0.0.1:%d/ctxhook?sslmode=disable", cluster.Port)
	back := filepath.Join(t.TempDir(), "back", "ctxhook.db")
	for _, args := range [][]string{{"--to", url}, {"--to", url}, {"--to", back}, {"--to", back}} {
		if out, errs, err := h.ctxhook(t, append([]string{"store", "migrate"}, args...)...); err != nil {
			t.Fatalf("migrate %v: %v\n%s%s", args, err, out, errs)
		}
	}
	if got := adminCount(t, `SELECT count(*) FROM ctxhook_events WHERE owner = 'dave'`); got != int64(n) {
		t.Fatalf("%d events in PostgreSQL, want %d", got, n)
	}
	a, b := openRO(t, orig), openRO(t, back)
	if sa, _ := a.Stats(""); sa.Events != int64(n) {
		t.Fatalf("original has %d", sa.Events)
	}
	if sb, _ := b.Stats(""); sb.Events != int64(n) {
		t.Fatalf("%d events back, want %d", sb.Events, n)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 20; i++ {
		q := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
		if i%4 == 0 {
			q = fmt.Sprintf("CVX-%d", rng.IntN(5000))
		}
		if ka, kb := hitKeys(t, a, q), hitKeys(t, b, q); !slices.Equal(ka, kb) {
			t.Errorf("search %q: original %v, migrated back %v", q, ka, kb)
		}
	}
}

func openRO(t *testing.T, path string) *store.Store {
	st, err := store.Open(path, store.Options{ReadOnly: true})
	must(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

// hitKeys names a search's hits by content (ids differ between stores).
func hitKeys(t *testing.T, st *store.Store, q string) []string {
	r, err := st.SearchResult(store.ParseQuery(q), store.SearchOptions{Limit: 10})
	must(t, err)
	var out []string
	for _, h := range r.Hits {
		out = append(out, h.Event.Args)
	}
	return out
}

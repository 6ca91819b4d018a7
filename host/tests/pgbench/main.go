// Command pgbench measures the shared store against the local one on the
// same events (make bench): search p50/p99 at each size on PostgreSQL and
// SQLite side by side, shipping throughput from the local store to the
// database, and a 10 MiB event's time from the local store to searchable
// in the database. It starts its own throwaway cluster.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/pgstore"
	"github.com/ctxhook/ctxhook/internal/pgcluster"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/jackc/pgx/v5"
)

func main() {
	sizes := flag.String("sizes", "100000", "store sizes, comma-separated (e.g. 100000,1000000)")
	queries := flag.Int("queries", 200, "searches per size and store")
	flag.StringVar(&benchDir, "dir", "", "where the cluster and stores go (default: a temporary directory)")
	flag.BoolVar(&keep, "keep", false, "leave the cluster running and its files in place, printing how to reach it")
	flag.Parse()
	if err := run(*sizes, *queries); err != nil {
		fmt.Fprintln(os.Stderr, "pgbench:", err)
		os.Exit(1)
	}
}

// benchDir and keep are the -dir and -keep flags: a big run's files on a
// disk with room, and a cluster left up to look into (EXPLAIN) afterwards.
var (
	benchDir string
	keep     bool
)

func run(sizes string, queries int) error {
	dir, err := os.MkdirTemp(benchDir, "ctxhook-pgbench-")
	if err != nil {
		return err
	}
	pg := filepath.Join(dir, "pg") // given to nobody when run as root
	if err := os.Mkdir(pg, 0o700); err != nil {
		return err
	}
	c, err := pgcluster.Start(pg)
	if err != nil {
		return err
	}
	if keep {
		defer fmt.Printf("\nkept: %s, superuser URL %s (stop: pg_ctl -D %s/data stop)\n", dir, c.SuperURL("bench0"), pg)
	} else {
		defer os.RemoveAll(dir)
		defer c.Stop()
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.SuperURL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	fmt.Printf("shared store (PostgreSQL, a throwaway cluster on 127.0.0.1) vs local store (SQLite), same events:\n")
	for i, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return err
		}
		db := "bench" + strconv.Itoa(i)
		if _, err := conn.Exec(ctx, `CREATE DATABASE `+db); err != nil {
			return err
		}
		url := c.SuperURL(db)
		if _, _, err := pgstore.Init(ctx, url); err != nil {
			return err
		}
		if err := pgstore.AddUser(ctx, url, "bench", benchPassword); err != nil && i == 0 {
			return err
		}
		if err := size(filepath.Join(dir, "stores", db), c.URL("bench", benchPassword, db), n, queries); err != nil {
			return err
		}
	}
	return nil
}

var words = strings.Fields(`checkout payments deploy rollback printer latency timeout database index
	migration kafka consumer lag alert grafana dashboard sentry exception nullpointer memory leak
	cache eviction redis cluster failover replica schema vacuum queue retry backoff token quota
	request response header cookie session handler worker thread mutex channel buffer socket`)

// size builds a local store of n events, ships it, and searches both.
func size(dir, url string, n, queries int) error {
	local, err := store.Open(filepath.Join(dir, "ctxhook.db"), store.Options{})
	if err != nil {
		return err
	}
	defer local.Close()
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	for i := 0; i < n; i += 1000 {
		var evs []abi.Event
		for j := i; j < min(i+1000, n); j++ {
			evs = append(evs, event(rng, j))
		}
		if _, err := local.Apply(evs, nil); err != nil {
			return err
		}
	}
	remote, err := pgstore.Open(context.Background(), url, pgstore.Options{Machine: "bench", Timeout: time.Minute})
	if err != nil {
		return err
	}
	defer remote.Close()
	start := time.Now()
	shipped, err := remote.Ship(context.Background(), local, nil)
	if err != nil {
		return err
	}
	took := time.Since(start).Seconds()
	fmt.Printf("\n%d events\n  shipping: %.0f events/s, %.1f MB/s (%d events, %.1f MB in %.1f s)\n", n,
		float64(shipped.Events)/took, float64(shipped.Bytes)/1e6/took, shipped.Events, float64(shipped.Bytes)/1e6, took)
	qs := queryList(rng, queries)
	for _, b := range []struct {
		name string
		s    store.Backend
	}{{"SQLite    ", local}, {"PostgreSQL", remote}} {
		p50, p99, err := timeSearches(b.s, qs)
		if err != nil {
			return err
		}
		fmt.Printf("  search %s p50 %6.2f ms  p99 %6.2f ms  (%d queries)\n", b.name, ms(p50), ms(p99), len(qs))
	}
	return bigEvent(local, remote)
}

func event(rng *rand.Rand, j int) abi.Event {
	var b strings.Builder
	for k := 0; k < 30+rng.IntN(120); k++ {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	fmt.Fprintf(&b, "CVX-%d in svc%dHandler at src/api/mod%d.ts:%d", rng.IntN(20000), rng.IntN(500), rng.IntN(800), rng.IntN(400))
	return abi.Event{TimeMS: int64(1_700_000_000_000 + j), Session: "s" + strconv.Itoa(j/200), Harness: "claude-code",
		HookEvent: "PostToolUse", Category: "mcp", Server: []string{"jira", "sentry", "grafana"}[j%3],
		Tool: "mcp__jira__get_issue", Args: `{"id":"CVX-` + strconv.Itoa(j) + `"}`, Text: b.String(), Response: "[]"}
}

// queryList mixes word pairs, single words and identifiers.
func queryList(rng *rand.Rand, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		switch i % 4 {
		case 0:
			out = append(out, fmt.Sprintf("CVX-%d", rng.IntN(20000)))
		case 1:
			out = append(out, fmt.Sprintf("svc%dHandler", rng.IntN(500)))
		case 2:
			out = append(out, words[rng.IntN(len(words))])
		default:
			out = append(out, words[rng.IntN(len(words))]+" "+words[rng.IntN(len(words))])
		}
	}
	return out
}

func timeSearches(s store.Backend, qs []string) (p50, p99 time.Duration, err error) {
	var ts []time.Duration
	for _, q := range qs {
		start := time.Now()
		if _, err := s.SearchResult(store.ParseQuery(q), store.SearchOptions{Limit: 10}); err != nil {
			return 0, 0, err
		}
		ts = append(ts, time.Since(start))
	}
	slices.Sort(ts)
	return ts[len(ts)/2], ts[len(ts)*99/100], nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// bigEvent times a 10 MiB event from the local store to found in the
// shared one by a term at its end.
func bigEvent(local *store.Store, remote *pgstore.Store) error {
	var b strings.Builder
	for b.Len() < 10<<20 {
		b.WriteString("2026-11-27T10:00:00Z INFO worker processed batch without incident\n")
	}
	b.WriteString("FATAL ZQ-90417 out of memory\n")
	e := abi.Event{TimeMS: time.Now().UnixMilli(), Session: "big", Harness: "claude-code", HookEvent: "PostToolUse",
		Category: "mcp", Server: "ci", Tool: "mcp__ci__get_log", Text: b.String(), Response: "[]"}
	if _, err := local.Apply([]abi.Event{e}, nil); err != nil {
		return err
	}
	start := time.Now()
	if _, err := remote.Ship(context.Background(), local, nil); err != nil {
		return err
	}
	shipped := time.Since(start)
	r, err := remote.SearchResult(store.ParseQuery("ZQ-90417"), store.SearchOptions{})
	if err != nil || len(r.Hits) != 1 {
		return fmt.Errorf("the 10 MiB event is not found: %v %v", len(r.Hits), err)
	}
	fmt.Printf("  10 MiB event: shipped in %.0f ms, searchable (found at its end) after %.0f ms\n", ms(shipped), ms(time.Since(start)))
	return nil
}

// benchPassword is random: any local user can reach the cluster's port.
var benchPassword = pgcluster.RandomPassword()

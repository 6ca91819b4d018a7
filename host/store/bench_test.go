package store

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/internal/testdir"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ncruces/go-sqlite3"
)

// BenchmarkApply is one hook's store write: one ~6 KB event in its own
// transaction, indexed twice.
func BenchmarkApply(b *testing.B) {
	s, err := Open(filepath.Join(testdir.New(b), "db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	body := strings.Repeat("Comment on CVX-5909: observed latency spike in eu-west-2; rollback considered. ", 75)
	i := 0
	for b.Loop() {
		i++
		e := ev("s", "jira", "mcp__jira__get_issue", fmt.Sprintf("Ticket CVX-%d %s", i, body))
		if _, err := s.Apply([]abi.Event{e}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyCapped is BenchmarkApply with the retention caps held on
// every write: no caps, under them (two lookups), and at the store-wide
// cap of a 2,000-event store (each write evicts; the slack spreads the
// ranking over cap/256 writes).
func BenchmarkApplyCapped(b *testing.B) {
	body := strings.Repeat("Comment on CVX-5909: observed latency spike in eu-west-2; rollback considered. ", 75)
	for _, c := range []struct {
		name string
		r    Retention
	}{{"none", Retention{}}, {"under", RetentionFrom(abi.RetentionConfig{})}, {"at-2000", Retention{MaxEvents: 2000}}} {
		b.Run(c.name, func(b *testing.B) {
			s, err := Open(filepath.Join(testdir.New(b), "db"), Options{Retention: c.r})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			var fill []abi.Event
			for i := range 2000 {
				fill = append(fill, ev("s", "jira", "mcp__jira__get_issue", fmt.Sprintf("Ticket CVX-%d %s", i, body)))
			}
			if _, err := s.Apply(fill, nil); err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				i++
				e := ev("s", "jira", "mcp__jira__get_issue", fmt.Sprintf("Ticket CVX-%d %s", i, body))
				if _, err := s.Apply([]abi.Event{e}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSearch searches 5,000 stored events for a ticket id.
func BenchmarkSearch(b *testing.B) {
	s, err := Open(filepath.Join(testdir.New(b), "db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var batch []abi.Event
	for i := 0; i < 5000; i++ {
		batch = append(batch, ev("s", "jira", "mcp__jira__get_issue",
			fmt.Sprintf("Ticket CVX-%d: checkout fails in region eu-west-%d; see retryPolicyForGateway%d", i, i%3, i%50)))
	}
	if _, err := s.Apply(batch, nil); err != nil {
		b.Fatal(err)
	}
	q := ParseQuery("CVX-4242")
	for b.Loop() {
		hits, err := s.Search(q, SearchOptions{})
		if err != nil || len(hits) == 0 {
			b.Fatal(hits, err)
		}
	}
}

// corpus100k opens (building it once, then reusing it from the user cache
// dir) a store of 100,000 varied events: tickets, logs, traces and code,
// about 700 bytes each.
func corpus100k(b *testing.B) *Store {
	b.Helper()
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	path := filepath.Join(dir, "ctxhook-bench", fmt.Sprintf("events-100k-v%d.db", SchemaVersion))
	_, statErr := os.Stat(path)
	s, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if statErr == nil {
		return s
	}
	b.Logf("building %s (once)", path)
	words := strings.Fields("checkout payments gateway retry latency spike region rollback deploy canary timeout " +
		"database connection pool exhausted cache miss eviction queue backlog consumer lag worker crashed " +
		"memory leak goroutine panic nil pointer dereference handler middleware auth token expired refresh " +
		"invoice customer subscription webhook signature mismatch rate limit throttled upstream downstream")
	servers := []string{"jira", "sentry", "grafana", "github", "linear"}
	var batch []abi.Event
	for i := 0; i < 100_000; i++ {
		var body strings.Builder
		fmt.Fprintf(&body, "Ticket CVX-%d: %s %s in region eu-west-%d. ", i, words[i%len(words)], words[(i*7)%len(words)], i%4)
		for j := 0; j < 9; j++ {
			w1, w2, w3 := words[(i+j*13)%len(words)], words[(i*3+j)%len(words)], words[(i*11+j*5)%len(words)]
			fmt.Fprintf(&body, "Log %d.%d: %s %s %s at src/svc%d/handler%d.go:%d trace tr-%x. ", i, j, w1, w2, w3, i%40, j, (i*j)%900, i*31+j)
		}
		e := ev(fmt.Sprintf("s%d", i/200), servers[i%len(servers)], "mcp__"+servers[i%len(servers)]+"__get", body.String())
		e.TimeMS = int64(i) * 1000
		batch = append(batch, e)
		if len(batch) == 2000 {
			if _, err := s.Apply(batch, nil); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return s
}

// BenchmarkSearch100k: searches over 100,000 events, a mix of identifiers,
// words and substrings; reports p50 and p99 per query.
func BenchmarkSearch100k(b *testing.B) {
	s := corpus100k(b)
	defer s.Close()
	queries := []string{"CVX-42424", "tr-2fb6e", "webhook signature mismatch", "handler7.go", "goroutine panic",
		"consumer lag eu-west-2", "svc17", "throttled upstream", "CVX-99999", "retry"}
	var times []time.Duration
	i := 0
	for b.Loop() {
		q := ParseQuery(queries[i%len(queries)])
		i++
		start := time.Now()
		if _, _, err := s.SearchTotal(q, SearchOptions{Limit: 10}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkApplyInto100k is indexing one new event into the
// 100,000-event store (one hook's write): a 2 KB event (the bundled
// session's average is 1.9 KB) and a 6 KB one.
func BenchmarkApplyInto100k(b *testing.B) {
	s := corpus100k(b)
	defer s.Close()
	line := "Comment on CVX-5909: observed latency spike in eu-west-2; rollback considered. "
	for _, n := range []int{25, 75} {
		body := strings.Repeat(line, n)
		b.Run(fmt.Sprintf("%dKB", (len(body)+500)/1000), func(b *testing.B) {
			var ids []int64
			for b.Loop() {
				id, err := s.Apply([]abi.Event{ev("bench", "jira", "mcp__jira__get_issue", body)}, nil)
				if err != nil {
					b.Fatal(err)
				}
				ids = append(ids, id...)
			}
			b.StopTimer()
			if err := s.DeleteEvents(ids); err != nil { // keep the cached corpus at 100,000
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkIndexState100k is the index check the MCP tools make on every
// call (IndexState and ChunkCount) over 100,000 events, side by side with
// the one SELECT it was before (which scanned the table).
func BenchmarkIndexState100k(b *testing.B) {
	s := corpus100k(b)
	defer s.Close()
	b.Run("now", func(b *testing.B) {
		for b.Loop() {
			if _, _, _, err := s.IndexState(); err != nil {
				b.Fatal(err)
			}
			if _, err := s.ChunkCount(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("one-select", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.count(`SELECT count(*) FROM (SELECT count(*), coalesce(max(id),0), coalesce(max(ts_ms),0) FROM events)`, nil); err != nil {
				b.Fatal(err)
			}
			if _, err := s.ChunkCount(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSearchNative100k times the 100,000-event searches side by
// side with native SQLite (the C library through cgo, built from
// bench/nativesqlite, a module of its own) running the same statements on
// the same file: each query's statements are captured from this store
// with SQLite's statement trace (bound values expanded), then both sides
// run 20 rounds of the queries. It reports both p50s and their ratio;
// skipped when the native tool cannot be built (no C compiler).
func BenchmarkSearchNative100k(b *testing.B) {
	native := filepath.Join(testdir.New(b), "nativesqlite")
	build := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", native, ".")
	build.Dir = "../../bench/nativesqlite"
	if out, err := build.CombinedOutput(); err != nil {
		b.Skipf("native SQLite not timed: cannot build bench/nativesqlite: %v\n%s", err, out)
	}
	s := corpus100k(b)
	defer s.Close()
	queries := []string{"CVX-42424", "tr-2fb6e", "webhook signature mismatch", "handler7.go", "goroutine panic",
		"consumer lag eu-west-2", "svc17", "throttled upstream", "CVX-99999", "retry"}
	var plan [][]string
	var cur []string
	if err := s.conn.Trace(sqlite3.TRACE_STMT, func(_ sqlite3.TraceEvent, a1, _ any) error {
		if st, ok := a1.(*sqlite3.Stmt); ok {
			cur = append(cur, st.ExpandedSQL())
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	for _, q := range queries {
		cur = nil
		if _, _, err := s.SearchTotal(ParseQuery(q), SearchOptions{Limit: 10}); err != nil {
			b.Fatal(err)
		}
		plan = append(plan, cur)
	}
	s.conn.Trace(0, nil)
	planFile := filepath.Join(testdir.New(b), "plan.json")
	pj, _ := json.Marshal(plan)
	os.WriteFile(planFile, pj, 0o600)
	const rounds = 20
	for b.Loop() {
		var goTimes, nativeTimes []time.Duration
		for range rounds {
			for _, q := range queries {
				start := time.Now()
				if _, _, err := s.SearchTotal(ParseQuery(q), SearchOptions{Limit: 10}); err != nil {
					b.Fatal(err)
				}
				goTimes = append(goTimes, time.Since(start))
			}
		}
		cmd := exec.Command(native, s.path, planFile, fmt.Sprint(rounds))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("native SQLite: %v: %s", err, stderr.String())
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var i int
			var ms float64
			fmt.Sscan(line, &i, &ms)
			nativeTimes = append(nativeTimes, time.Duration(ms*float64(time.Millisecond)))
		}
		slices.Sort(goTimes)
		slices.Sort(nativeTimes)
		g, n := goTimes[len(goTimes)/2], nativeTimes[len(nativeTimes)/2]
		b.ReportMetric(float64(g.Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(n.Microseconds())/1000, "native-p50-ms")
		b.ReportMetric(float64(g)/float64(n), "x-native")
		b.Logf("%s; statements per query: %d-%d", strings.TrimSpace(stderr.String()), minLen(plan), maxLen(plan))
	}
}

func minLen(p [][]string) int {
	m := len(p[0])
	for _, x := range p {
		m = min(m, len(x))
	}
	return m
}

func maxLen(p [][]string) int {
	m := 0
	for _, x := range p {
		m = max(m, len(x))
	}
	return m
}

package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/mcpserver"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMCPSearch100k is ctxhook mcp's search tool over the
// 100,000-event store, called by the official SDK client over its
// in-memory transport: the queries of BenchmarkSearchNative100k, each
// round with another limit (so none is answered from the cache), and
// then each query repeated (answered from the cache: the index has not
// changed). Reports p50 and p99 of both.
func BenchmarkMCPSearch100k(b *testing.B) {
	db := store.Corpus100kPath(b)
	srv := mcpserver.New(mcpserver.Options{DB: db, Version: "bench"})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	queries := []string{"CVX-42424", "tr-2fb6e", "webhook signature mismatch", "handler7.go", "goroutine panic",
		"consumer lag eu-west-2", "svc17", "throttled upstream", "CVX-99999", "retry"}
	call := func(q string, limit int) time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": q, "limit": limit}})
		if err != nil || res.IsError {
			b.Fatalf("search %q: %v %+v", q, err, res)
		}
		return time.Since(start)
	}
	round := 0
	for b.Loop() {
		var fresh, cached []time.Duration
		for range 20 {
			round++
			for _, q := range queries {
				fresh = append(fresh, call(q, 1+round%50))
				cached = append(cached, call(q, 1+round%50))
			}
		}
		slices.Sort(fresh)
		slices.Sort(cached)
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.ReportMetric(ms(fresh[len(fresh)/2]), "p50-ms")
		b.ReportMetric(ms(fresh[len(fresh)*99/100]), "p99-ms")
		b.ReportMetric(ms(cached[len(cached)/2]), "cached-p50-ms")
		b.ReportMetric(ms(cached[len(cached)*99/100]), "cached-p99-ms")
	}
}

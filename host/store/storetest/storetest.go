// Package storetest is the one suite of store tests every backend runs:
// the embedded SQLite store (host/store) and the shared PostgreSQL store
// (host/store/pgstore). Whatever search, get_event's pages, stats and
// purge promise, they promise on both.
package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// Opener gives a new, empty store; the test closes it.
type Opener func(t *testing.T) store.Backend

// Run runs every case against stores from open.
func Run(t *testing.T, open Opener) {
	t.Run("Search", func(t *testing.T) { testSearch(t, open(t)) })
	t.Run("PartialMatch", func(t *testing.T) { testPartial(t, open(t)) })
	t.Run("BigBody", func(t *testing.T) { testBigBody(t, open(t)) })
	t.Run("Stats", func(t *testing.T) { testStats(t, open(t)) })
	t.Run("Purge", func(t *testing.T) { testPurge(t, open(t)) })
	t.Run("NotFound", func(t *testing.T) { testNotFound(t, open(t)) })
}

// Ev is an MCP event of a session and server with text as its body.
func Ev(session, server, tool, text string) abi.Event {
	return abi.Event{TimeMS: 1, Session: session, Harness: "claude-code", HookEvent: "PostToolUse",
		Category: "mcp", Server: server, Tool: tool, Args: `{"q":1}`, Response: `[{"type":"text","text":"x"}]`,
		Text: text, ResponseBytes: len(text)}
}

func apply(t *testing.T, s store.Backend, events ...abi.Event) []int64 {
	t.Helper()
	ids, err := s.Apply(events, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func ids(t *testing.T, s store.Backend, query string, o store.SearchOptions) []int64 {
	t.Helper()
	r, err := s.SearchResult(store.ParseQuery(query), o)
	if err != nil {
		t.Fatalf("search %q: %v", query, err)
	}
	var out []int64
	for _, h := range r.Hits {
		out = append(out, h.Event.ID)
	}
	return out
}

func testSearch(t *testing.T, s store.Backend) {
	defer s.Close()
	id := apply(t, s,
		Ev("s1", "jira", "mcp__jira__get_issue", "Ticket CVX-5909: payments are failing in checkout"),
		Ev("s1", "sentry", "mcp__sentry__get_event", "TypeError in getUserById at src/api/users.ts:42"),
		Ev("s2", "jira", "mcp__jira__get_issue", "Ticket CVX-1000: the printers were configured"))
	tests := []struct {
		name, query string
		opts        store.SearchOptions
		want        []int64
	}{
		{"ticket id", "CVX-5909", store.SearchOptions{}, []int64{id[0]}},
		{"stemming", "configure printer", store.SearchOptions{}, []int64{id[2]}},
		{"camelCase substring", "UserBy", store.SearchOptions{}, []int64{id[1]}},
		{"path", "users.ts", store.SearchOptions{}, []int64{id[1]}},
		{"session filter", "Ticket", store.SearchOptions{Session: "s2"}, []int64{id[2]}},
		{"server filter", "Ticket", store.SearchOptions{Server: "jira", Session: "s1"}, []int64{id[0]}},
		{"limit", "Ticket", store.SearchOptions{Limit: 1}, []int64{id[2]}},
		{"operators are literal", `payments" OR *`, store.SearchOptions{Limit: 1}, []int64{id[0]}},
	}
	for _, tt := range tests {
		if got := ids(t, s, tt.query, tt.opts); !slices.Equal(got, tt.want) {
			t.Errorf("%s: search %q = %v, want %v", tt.name, tt.query, got, tt.want)
		}
	}
	r, err := s.SearchResult(store.ParseQuery("CVX-5909"), store.SearchOptions{})
	if err != nil || len(r.Hits) != 1 || !strings.Contains(r.Hits[0].Snippet, "CVX-5909") {
		t.Errorf("snippet of CVX-5909: %+v %v", r.Hits, err)
	}
}

// testPartial: an event holding some terms is found, the one holding
// more first, and the terms no event holds are named.
func testPartial(t *testing.T, s store.Backend) {
	defer s.Close()
	id := apply(t, s,
		Ev("s1", "jira", "mcp__jira__get_issue", "the deploy of checkout failed"),
		Ev("s1", "jira", "mcp__jira__get_issue", "the deploy of checkout failed with OOMKilled"))
	r, err := s.SearchResult(store.ParseQuery("checkout OOMKilled zebrafish"), store.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Hits) != 2 || r.Hits[0].Event.ID != id[1] || r.Hits[1].Event.ID != id[0] {
		t.Fatalf("hits %+v, want %d then %d", r.Hits, id[1], id[0])
	}
	if !slices.Equal(r.Unmatched, []string{"zebrafish"}) {
		t.Errorf("unmatched %v, want [zebrafish]", r.Unmatched)
	}
	if !slices.Contains(r.Hits[1].Missing, "OOMKilled") || r.Complete() {
		t.Errorf("missing %v; complete %v", r.Hits[1].Missing, r.Complete())
	}
}

// testBigBody: a body far larger than a head or an indexed piece reads
// back whole in pages, and a term near its end is found with an offset
// that points at it.
func testBigBody(t *testing.T, s store.Backend) {
	defer s.Close()
	var b strings.Builder
	for b.Len() < 3<<20 {
		b.WriteString("log line of a long build output, nothing to see here é\n")
	}
	b.WriteString("FATAL: QX-77123 linker ran out of memory\n")
	body := b.String()
	id := apply(t, s, Ev("s1", "ci", "mcp__ci__get_log", body))[0]
	e, err := s.Event(id)
	if err != nil {
		t.Fatal(err)
	}
	if e.TextSize != int64(len(body)) || e.Whole() || len(e.Text) > store.HeadSize {
		t.Fatalf("size %d whole %v head %d", e.TextSize, e.Whole(), len(e.Text))
	}
	var got strings.Builder
	for off := int64(0); off < e.TextSize; off += 1 << 20 {
		page, err := s.ReadBody(id, store.FieldText, off, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		got.WriteString(page)
	}
	if got.String() != body {
		t.Fatalf("pages give %d bytes, want the %d-byte body", got.Len(), len(body))
	}
	r, err := s.SearchResult(store.ParseQuery("QX-77123"), store.SearchOptions{})
	if err != nil || len(r.Hits) != 1 {
		t.Fatalf("search at the end: %+v %v", r.Hits, err)
	}
	at := r.Hits[0].Offset
	if page, _ := s.ReadBody(id, store.FieldText, at, 8); page != "QX-77123" {
		t.Errorf("offset %d reads %q", at, page)
	}
}

func testStats(t *testing.T, s store.Backend) {
	defer s.Close()
	apply(t, s, Ev("s1", "jira", "t", "a"), Ev("s1", "sentry", "t", "b"), Ev("s2", "jira", "t", "c"))
	st, err := s.Stats("")
	if err != nil {
		t.Fatal(err)
	}
	if st.Events != 3 || st.Sessions != 2 || st.ByServer["jira"] != 2 || st.MCPCalls != 3 {
		t.Errorf("stats %+v", st)
	}
	if st, _ := s.Stats("s2"); st.Events != 1 {
		t.Errorf("stats of s2: %d events", st.Events)
	}
}

func testPurge(t *testing.T, s store.Backend) {
	defer s.Close()
	apply(t, s, Ev("s1", "jira", "t", "alpha beta"), Ev("s2", "jira", "t", "alpha gamma"))
	if _, err := s.Purge(store.PurgeFilter{}, false, false); err == nil {
		t.Error("an empty filter purged")
	}
	p, err := s.Purge(store.PurgeFilter{Session: "s1"}, true, false)
	if err != nil || p.Events != 1 {
		t.Fatalf("dry run: %+v %v", p, err)
	}
	if got := ids(t, s, "beta", store.SearchOptions{}); len(got) != 1 {
		t.Fatalf("a dry run deleted: %v", got)
	}
	if p, err = s.Purge(store.PurgeFilter{Session: "s1"}, false, false); err != nil || p.Events != 1 {
		t.Fatalf("purge: %+v %v", p, err)
	}
	if got := ids(t, s, "beta", store.SearchOptions{}); len(got) != 0 {
		t.Errorf("purged event still found: %v", got)
	}
	if got := ids(t, s, "alpha", store.SearchOptions{}); len(got) != 1 {
		t.Errorf("other session's event: %v", got)
	}
}

func testNotFound(t *testing.T, s store.Backend) {
	defer s.Close()
	if _, err := s.Event(987654); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := s.SearchResult(store.ParseQuery("  "), store.SearchOptions{}); err == nil {
		t.Error("an empty query searched")
	}
}

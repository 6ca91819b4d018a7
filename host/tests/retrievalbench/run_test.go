package main

import (
	"path/filepath"
	"testing"

	"github.com/ctxhook/ctxhook/internal/retrievalcorpus"
)

// TestJudge: a question is answered at the rank where its last fact's
// records are found, and its snippet must show each fact.
func TestJudge(t *testing.T) {
	keys := map[int64]string{1: "a", 2: "b", 3: "c", 4: "d"}
	two := retrievalcorpus.Question{Expect: []retrievalcorpus.Expect{{Value: "Priya Raman", Keys: []string{"b"}}, {Value: "v2.3.4", Keys: []string{"d", "c"}}}}
	for _, tc := range []struct {
		name    string
		q       retrievalcorpus.Question
		hits    []result
		rank    int
		snippet bool
	}{
		{"both, snippets show them", two, []result{{1, "x"}, {3, "released in V2.3.4"}, {2, "assignee  priya\nraman"}}, 3, true},
		{"one missing", two, []result{{2, "Priya Raman"}, {1, "v2.3.4"}}, 0, false},
		{"found, snippet elsewhere", two, []result{{2, "Priya Raman"}, {4, "nothing"}, {1, "v2.3.4"}}, 2, false},
		{"nothing", two, nil, 0, false},
	} {
		o := judge(tc.q, tc.hits, keys)
		if o.rank != tc.rank || o.snippet != tc.snippet || o.none != (len(tc.hits) == 0) {
			t.Errorf("%s: rank %d snippet %v none %v", tc.name, o.rank, o.snippet, o.none)
		}
	}
}

// TestBaseline: the baseline ANDs the terms, ORs them when that finds
// nothing, and snippets the match, over a real SQLite file.
func TestBaseline(t *testing.T) {
	ing := &ingested{docs: []doc{
		{1, `{"issue_key":"CHK-4410"}`, "Checkout returns 502 Bad Gateway"},
		{2, `{}`, "the ledger migration is flaky"},
	}}
	b, err := newBaseline(filepath.Join(t.TempDir(), "b.db"), ing)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	for _, tc := range []struct {
		query string
		ids   []int64
	}{
		{"CHK-4410", []int64{1}},
		{"flaky ledger", []int64{2}},
		{"ledger checkout", []int64{1, 2}}, // no document has both: either
		{`"" zzz`, nil},
	} {
		got, err := b.search(tc.query)
		if err != nil {
			t.Fatalf("%q: %v", tc.query, err)
		}
		if len(got) != len(tc.ids) {
			t.Fatalf("%q: %v", tc.query, got)
		}
		for _, r := range got {
			if r.snippet == "" {
				t.Errorf("%q: no snippet for %d", tc.query, r.id)
			}
		}
	}
}

// TestOpenBaseline: -reuse opens the index an earlier run built, and
// builds one when there is none or it holds nothing.
func TestOpenBaseline(t *testing.T) {
	dir := t.TempDir()
	if b, err := openBaseline(filepath.Join(dir, "none.db")); b != nil || err != nil {
		t.Fatalf("missing: %v, %v", b, err)
	}
	path := filepath.Join(dir, "b.db")
	b, err := newBaseline(path, &ingested{docs: []doc{{1, `{}`, "the ledger migration is flaky"}}})
	if err != nil {
		t.Fatal(err)
	}
	b.close()
	b, err = openBaseline(path)
	if err != nil || b == nil {
		t.Fatalf("built: %v, %v", b, err)
	}
	defer b.close()
	if got, err := b.search("flaky"); err != nil || len(got) != 1 {
		t.Fatalf("reopened: %v, %v", got, err)
	}
	empty := filepath.Join(dir, "empty.db")
	e, err := newBaseline(empty, &ingested{})
	if err != nil {
		t.Fatal(err)
	}
	e.close()
	if e, err := openBaseline(empty); e != nil || err != nil {
		t.Fatalf("empty: %v, %v", e, err)
	}
}

// TestSnippetOfHits: "of hits" counts only the questions whose facts
// were all found; the plain column counts every question.
func TestSnippetOfHits(t *testing.T) {
	m := measure([]outcome{{rank: 1, snippet: true}, {rank: 2}, {rank: 0, none: true}})
	if m.Snippet != 1.0/3 || m.SnippetOfHits != 0.5 {
		t.Errorf("snippet %.2f, of hits %.2f; want 0.33 and 0.50", m.Snippet, m.SnippetOfHits)
	}
	if m := measure([]outcome{{rank: 0}}); m.SnippetOfHits != 0 {
		t.Errorf("no hits: of hits %.2f, want 0", m.SnippetOfHits)
	}
}

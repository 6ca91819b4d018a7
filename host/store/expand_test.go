package store

import (
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/store/lexicon"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestRelatedWords: with CTXHOOK_SEARCH_EXPAND=wordnet a query in
// words no record uses finds the record through WordNet's words for the
// same thing, an inflection finds its dictionary form in a snippet, and
// a literal match still ranks above a related one. By default a word no
// record holds finds nothing, as before.
func TestRelatedWords(t *testing.T) {
	t.Setenv("CTXHOOK_SEARCH_EXPAND", "wordnet")
	s := open(t)
	invoices := ev("s1", "jira", "mcp__jira__jira_get_issue", `{"key":"BIL-1","fields":{"summary":"invoice-renderer sends each invoice twice to zqshop customers"}}`)
	stock := ev("s1", "jira", "mcp__jira__jira_get_issue", `{"key":"INV-2","fields":{"summary":"inventory-sync: zqwarehouse rows lock each other"}}`)
	other := ev("s1", "jira", "mcp__jira__jira_get_issue", `{"key":"CHK-3","fields":{"summary":"checkout returns 502 Bad Gateway"}}`)
	literal := ev("s1", "jira", "mcp__jira__jira_get_issue", `{"key":"BIL-4","fields":{"summary":"the bill footer shows the old address"}}`)
	ids, err := s.Apply([]abi.Event{invoices, stock, other, literal}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query   string
		first   int64
		snippet string
	}{
		{"who gets billed twice", ids[0], "each invoice twice"},
		{"stock locking", ids[1], "rows lock each other"},
		{"bill footer", ids[3], "bill footer"},
	}
	for _, tt := range tests {
		hits, err := s.Search(ParseQuery(tt.query), SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Event.ID != tt.first {
			t.Errorf("%q: %d hits, want %d first", tt.query, len(hits), tt.first)
			continue
		}
		if !strings.Contains(hits[0].Snippet, tt.snippet) {
			t.Errorf("%q: snippet %q does not show %q", tt.query, hits[0].Snippet, tt.snippet)
		}
	}
	t.Setenv("CTXHOOK_SEARCH_EXPAND", "")
	for _, q := range []string{"stock"} {
		hits, err := s.Search(ParseQuery(q), SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 0 {
			t.Errorf("default: %q found %d", q, len(hits))
		}
	}
}

// TestLexiconForms: inflected forms map to the forms the table holds.
func TestLexiconForms(t *testing.T) {
	for in, want := range map[string]string{"crashes": "crash", "locking": "locking lock", "queries": "query", "bills": "bill", "stopped": "stopped stop", "zqword": ""} {
		if got := strings.Join(lexicon.Forms(in), " "); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

// TestSnippetStemAndCause: by default a snippet finds a query word by
// its dictionary form (the stemmed index matched "locking" in "lock
// up"), and "why" asks for the root cause, so the snippet shows it.
// Without dictionary forms, and without "why" as a hint, both snippets
// showed the first place the other term is.
func TestSnippetStemAndCause(t *testing.T) {
	s := open(t)
	filler := strings.Repeat("Routine note about the weekly sync and nothing else. ", 8)
	locks := ev("s1", "jira", "mcp__jira__jira_get_issue", `{"summary":"zqsvc weekly note","description":"`+filler+`","comment":"zqsvc rows lock up under load"}`)
	cause := ev("s1", "jira", "mcp__jira__jira_get_issue", `{"summary":"zqledger hits database deadlocks","description":"`+filler+
		`","comment":"Root cause: zqtwo workers updated the same rows in opposite order."}`)
	if _, err := s.Apply([]abi.Event{locks, cause}, nil); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{"zqsvc locking": "rows lock up", "why does zqledger deadlock": "zqtwo workers updated"} {
		hits, err := s.Search(ParseQuery(q), SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			t.Errorf("%q: no hit", q)
		} else if !strings.Contains(hits[0].Snippet, want) {
			t.Errorf("%q: snippet %q, want %q", q, hits[0].Snippet, want)
		}
	}
}

// TestStemOf: the stem is a prefix of the word's other forms.
func TestStemOf(t *testing.T) {
	for in, want := range map[string]string{"locking": "lock", "locked": "lock", "locks": "lock", "queries": "quer",
		"stopped": "stop", "crashes": "crash", "class": "class", "bus": "bus", "pulled": "pull", "fix": "fix"} {
		if got := stemOf(in); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

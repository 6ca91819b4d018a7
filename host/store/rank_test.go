package store

import (
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestRanking: queries as an agent types them find the record they
// mean. Each case failed when every term was required, substring
// matches ranked by recency, escapes were indexed as typed and snippets
// began at the first term found.
func TestRanking(t *testing.T) {
	s := open(t)
	filler := strings.Repeat("Routine note about the weekly sync and nothing else. ", 8)
	issue := ev("s1", "jira", "mcp__jira__jira_get_issue", `{"key":"INV-903","fields":{"assignee":{"displayName":"Priya Raman"},`+
		`"description":"`+filler+`","summary":"Paginate refund emails in ledger-writer"}}`)
	issue.Args = `{"issue_key":"INV-903"}`
	row := `,"status":{"name":"In Progress"},"priority":{"name":"Medium"},"reporter":{"displayName":"Grace Okafor"}},`
	list := ev("s1", "jira", "mcp__jira__jira_search", `{"issues":[{"key":"INV-9030","summary":"Paginate the export"`+row+
		`{"key":"INV-9031","summary":"Refund emails for partners"`+row+`{"key":"LED-1","summary":"ledger-writer upgrade"`+row+`{}]}`)
	escaped := ev("s1", "grafana", "mcp__grafana__query_loki_logs", `[{"line":"level=error msg=\"upstream said retry later\"\nNightly job zqescape failed"}]`)
	spread := ev("s1", "confluence", "mcp__confluence__get_page", "zqalpha first. "+strings.Repeat("padding words here. ", 40)+
		"Later on: zqalpha zqbeta zqgamma all together here.")
	pr := ev("s1", "github", "mcp__github__get_pull_request", `{"number":4412,"title":"checkout: retry the charge","user":{"login":"akapoor"}}`)
	other := ev("s1", "jira", "mcp__jira__jira_get_issue", `{"key":"CHK-1","fields":{"summary":"retry the charge 4412 times"}}`)
	ids, err := s.Apply([]abi.Event{issue, list, escaped, spread, pr, other}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, query string
		first       int64
		snippet     string // the snippet of the first hit shows it
	}{
		{"question words and a word in no record", "who owns the paginate refund emails work for ledger-writer ticket", ids[0], "Priya Raman"},
		{"exact id before a longer one", "INV-903", ids[0], "INV-903"},
		{"record word as a hint", "ticket INV-903", ids[0], "INV-903"},
		{"PR number", "PR #4412", ids[4], "checkout: retry the charge"},
		{"phrase across an escaped line break", `"retry later" "later Nightly"`, ids[2], `said retry later" Nightly job`},
		{"snippet where the terms meet", "zqalpha zqbeta zqgamma", ids[3], "zqalpha zqbeta zqgamma all together"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := s.Search(ParseQuery(tt.query), SearchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].Event.ID != tt.first {
				var got []int64
				for _, h := range hits {
					got = append(got, h.Event.ID)
				}
				t.Fatalf("%q: %v, want %d first", tt.query, got, tt.first)
			}
			if !strings.Contains(hits[0].Snippet, tt.snippet) {
				t.Errorf("%q: snippet %q does not show %q", tt.query, hits[0].Snippet, tt.snippet)
			}
		})
	}
	r, err := s.SearchResult(ParseQuery("who owns zqnothere zqalpha"), SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Complete() || len(r.Hits) == 0 || strings.Join(r.Unmatched, ",") != "zqnothere" || strings.Join(r.Hits[0].Missing, ",") != "zqnothere" {
		t.Errorf("partial: complete %v, unmatched %v, hits %d", r.Complete(), r.Unmatched, len(r.Hits))
	}
}

// TestUnescapeJSON: escapes are undone, anything else is kept, and an
// offset in the text maps back to the same character in the source.
func TestUnescapeJSON(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`plain`, `plain`},
		{`a\nb\tc\"d\\e\/f`, "a\nb\tc\"d\\e/f"},
		{`caf\u00e9 \ud83d\ude00 x`, "café 😀 x"},
		{`C:\windows\system`, `C:\windows\system`},
		{`a\u0000hidden \u001b[31mred\b.`, "a hidden  [31mred ."},
		{`bad \u12 end\`, `bad \u12 end\`},
	} {
		got, back := unescapeJSON(tt.in)
		if got != tt.want {
			t.Errorf("%q: %q, want %q", tt.in, got, tt.want)
		}
		if i := strings.LastIndexByte(got, tt.want[len(tt.want)-1]); tt.in[back(i)] != got[i] {
			t.Errorf("%q: offset %d maps to %d", tt.in, i, back(i))
		}
	}
}

func FuzzUnescapeJSON(f *testing.F) {
	for _, s := range []string{`a\nb`, `\u00e9\ud83d\ude00`, `\`, `\u`, `x\\"y`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, back := unescapeJSON(s)
		if len(got) > len(s)+len(s)/2+3 {
			t.Fatalf("grew: %q -> %q", s, got)
		}
		for i := 0; i <= len(got); i++ {
			if j := back(i); j < 0 || j > len(s) {
				t.Fatalf("%q: %d maps to %d", s, i, j)
			}
		}
	})
}

package store

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// BenchmarkApply is one hook's store write: one ~6 KB event in its own
// transaction, indexed twice.
func BenchmarkApply(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "db"), Options{})
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

// BenchmarkSearch searches 5,000 stored events for a ticket id.
func BenchmarkSearch(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "db"), Options{})
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

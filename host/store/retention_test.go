package store

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ctxhook/ctxhook/internal/testdir"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestRetention: over a cap, the least valuable categories go first and,
// within one, the oldest; MCP responses go last. A write now and then
// enforces the caps by itself.
func TestRetention(t *testing.T) {
	s, err := Open(filepath.Join(testdir.New(t), "r.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var events []abi.Event
	cats := []string{abi.CategoryMCP, abi.CategorySession, abi.CategoryShell, abi.CategoryMCP, abi.CategoryPrompt}
	for i := 0; i < 50; i++ {
		session := "s1"
		if i%2 == 1 {
			session = "s2"
		}
		events = append(events, abi.Event{TimeMS: int64(i), Session: session, Harness: "claude-code", HookEvent: "PostToolUse",
			Category: cats[i%len(cats)], Tool: "t", Text: fmt.Sprintf("event%02d", i)})
	}
	if _, err := s.Apply(events, nil); err != nil {
		t.Fatal(err)
	}
	// 20 MCP, 10 each of session, shell and prompt; 25 per session.
	n, err := s.Enforce(Retention{MaxEvents: 25})
	if err != nil || n != 25 {
		t.Fatalf("evicted %d (%v), want 25", n, err)
	}
	st, _ := s.Stats("")
	if st.ByCategory[abi.CategoryMCP] != 20 || st.ByCategory[abi.CategoryShell] != 5 || st.ByCategory[abi.CategorySession]+st.ByCategory[abi.CategoryPrompt] != 0 {
		t.Fatalf("kept %v: want every MCP event and the newest shell ones", st.ByCategory)
	}
	if hits, _ := s.Search(ParseQuery("event02"), SearchOptions{}); len(hits) != 0 {
		t.Errorf("the oldest shell event survived")
	}
	if hits, _ := s.Search(ParseQuery("event47"), SearchOptions{}); len(hits) != 1 {
		t.Errorf("the newest shell event was evicted")
	}
	// Per session.
	if _, err := s.Enforce(Retention{MaxSessionEvents: 10}); err != nil {
		t.Fatal(err)
	}
	for _, session := range []string{"s1", "s2"} {
		if st, _ := s.Stats(session); st.Events != 10 || st.ByCategory[abi.CategoryMCP] != 10 {
			t.Errorf("%s: %d events %v, want 10 MCP", session, st.Events, st.ByCategory)
		}
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}

	// Writes enforce the caps every 200 events.
	s2, err := Open(filepath.Join(testdir.New(t), "w.db"), Options{Retention: Retention{MaxEvents: 150}})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for i := 0; i < 250; i++ {
		s2.Apply([]abi.Event{{TimeMS: int64(i), Session: "s", Harness: "h", HookEvent: "e", Category: abi.CategoryTool, Text: "x"}}, nil)
	}
	if st, _ := s2.Stats(""); st.Events != 200 {
		t.Errorf("%d events after 250 writes with a cap of 150 (enforced at the 200th), want 200", st.Events)
	}
}

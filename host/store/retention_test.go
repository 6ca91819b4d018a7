package store

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ctxhook/ctxhook/internal/testdir"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestRetention: over a cap, the least valuable categories go first and,
// within one, the oldest; MCP responses go last. (Writes hold the caps
// by themselves: TestRetentionHolds.)
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

}

// TestRetentionHolds: the caps hold after every write, not once in a
// while. With max_events = 50, 171 events written one by one leave 50
// (171 stood when the caps were checked every 200 ids); with
// max_session_events = 10, no session ever holds more than 10.
func TestRetentionHolds(t *testing.T) {
	for _, r := range []Retention{{MaxEvents: 50}, {MaxSessionEvents: 10}, {MaxEvents: 30, MaxSessionEvents: 20}} {
		t.Run(fmt.Sprintf("%d-%d", r.MaxEvents, r.MaxSessionEvents), func(t *testing.T) {
			s, err := Open(filepath.Join(testdir.New(t), "r.db"), Options{Retention: r})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for i := 0; i < 171; i++ {
				session := fmt.Sprintf("s%d", i%3)
				ev := abi.Event{TimeMS: int64(i), Session: session, Harness: "claude-code", HookEvent: "PostToolUse",
					Category: abi.CategoryShell, Tool: "t", Text: fmt.Sprintf("event%03d", i)}
				if _, err := s.Apply([]abi.Event{ev}, nil); err != nil {
					t.Fatal(err)
				}
				st, _ := s.Stats("")
				if r.MaxEvents > 0 && st.Events > int64(r.MaxEvents) {
					t.Fatalf("after %d writes %d events stand, cap %d", i+1, st.Events, r.MaxEvents)
				}
				if ss, _ := s.Stats(session); r.MaxSessionEvents > 0 && ss.Events > int64(r.MaxSessionEvents) {
					t.Fatalf("after %d writes session %s holds %d events, cap %d", i+1, session, ss.Events, r.MaxSessionEvents)
				}
			}
			if hits, _ := s.Search(ParseQuery("event170"), SearchOptions{}); len(hits) != 1 {
				t.Errorf("the newest event was evicted")
			}
			if err := s.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

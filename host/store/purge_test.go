package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/internal/testdir"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestPurge: purging by session, server and age removes exactly those
// events, and their text is gone from the database files and the
// indexes, not only from the tables.
func TestPurge(t *testing.T) {
	path := filepath.Join(testdir.New(t), "p.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mark := func(session, server string, ts int64) string { return fmt.Sprintf("mark%s%s%d", session, server, ts) }
	var events []abi.Event
	for _, session := range []string{"s1", "s2"} {
		for _, server := range []string{"jira", "sentry"} {
			for _, ts := range []int64{1000, 2000} {
				events = append(events, abi.Event{TimeMS: ts, Session: session, Harness: "claude-code", HookEvent: "PostToolUse",
					Category: "mcp", Tool: "t", Server: server, Text: "ticket body " + mark(session, server, ts)})
			}
		}
	}
	if _, err := s.Apply(events, []abi.Effect{{Op: abi.OpTally, Session: "s1", Name: "nudges_fired", Count: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Purge(PurgeFilter{}, false, false); err == nil {
		t.Fatal("an empty filter purged")
	}
	steps := []struct {
		f        PurgeFilter
		events   int64
		gone     []string
		leftover int64
	}{
		{PurgeFilter{Session: "s1", Server: "jira"}, 2, []string{mark("s1", "jira", 1000), mark("s1", "jira", 2000)}, 6},
		{PurgeFilter{BeforeMS: 1500}, 3, []string{mark("s1", "sentry", 1000), mark("s2", "jira", 1000), mark("s2", "sentry", 1000)}, 3},
		{PurgeFilter{Session: "s2"}, 2, []string{mark("s2", "jira", 2000), mark("s2", "sentry", 2000)}, 1},
	}
	for _, st := range steps {
		dry, err := s.Purge(st.f, true, false)
		if err != nil || dry.Events != st.events {
			t.Fatalf("dry run %+v: %+v %v", st.f, dry, err)
		}
		p, err := s.Purge(st.f, false, false)
		if err != nil || p.Events != st.events {
			t.Fatalf("purge %+v: %+v %v", st.f, p, err)
		}
		if stats, _ := s.Stats(""); stats.Events != st.leftover {
			t.Fatalf("after %+v: %d events left, want %d", st.f, stats.Events, st.leftover)
		}
		for _, m := range st.gone {
			if hits, _ := s.Search(ParseQuery(m), SearchOptions{}); len(hits) != 0 {
				t.Errorf("%s still found by search", m)
			}
			for _, suffix := range []string{"", "-wal", "-shm"} {
				if b, _ := os.ReadFile(path + suffix); bytes.Contains(b, []byte(m)) {
					t.Errorf("%s still in %s", m, filepath.Base(path+suffix))
				}
			}
		}
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if hits, _ := s.Search(ParseQuery(mark("s1", "sentry", 2000)), SearchOptions{}); len(hits) != 1 {
		t.Errorf("the event no filter selected is gone")
	}
}

// TestPurgeCountsWhatItDeletes: an event another writer adds after the
// purge began, but before its delete, is deleted and reported: the
// figures are what the delete removed, not a count taken before it.
func TestPurgeCountsWhatItDeletes(t *testing.T) {
	path := filepath.Join(testdir.New(t), "p.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ev := func(text string) []abi.Event {
		return []abi.Event{{TimeMS: 1, Session: "s1", Harness: "claude-code", HookEvent: "PostToolUse", Category: "mcp", Tool: "t", Text: text}}
	}
	if _, err := s.Apply(ev("first body"), nil); err != nil {
		t.Fatal(err)
	}
	purgeBegins = func() {
		if _, err := other.Apply(ev("late body"), nil); err != nil {
			t.Error(err)
		}
	}
	defer func() { purgeBegins = nil }()
	p, err := s.Purge(PurgeFilter{Session: "s1"}, false, false)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := s.Stats("")
	if st.Events != 0 {
		t.Fatalf("%d events left after purging their session", st.Events)
	}
	if p.Events != 2 || p.Bytes != int64(len("first body")+len("late body")) {
		t.Errorf("purge reported %+v; it deleted 2 events of %d bytes", p, len("first body")+len("late body"))
	}
}

// TestPurgeVacuumGivesSpaceBack: with another connection open on the
// store, as the daemon keeps one, purge --vacuum leaves a file smaller
// than before and an empty write-ahead log. VACUUM writes the whole
// rewritten database through the WAL; checkpointing only before it left
// a WAL as large as the new database (a 263 MB store became 195 MB plus
// a 196 MB WAL).
func TestPurgeVacuumGivesSpaceBack(t *testing.T) {
	path := filepath.Join(testdir.New(t), "v.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := Open(path, Options{}) // the daemon's connection
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	body := strings.Repeat("log line with words to index ", 2000)
	var events []abi.Event
	for i := 0; i < 200; i++ {
		events = append(events, abi.Event{TimeMS: int64(1000 + i), Session: fmt.Sprintf("s%d", i%2), Harness: "claude-code",
			HookEvent: "PostToolUse", Category: "mcp", Tool: "t", Server: "loki", Text: fmt.Sprintf("%d %s", i, body)})
	}
	if _, err := s.Apply(events, nil); err != nil {
		t.Fatal(err)
	}
	size := func(p string) int64 { // 0 for a file not there (no WAL under Wine)
		if fi, err := os.Stat(p); err == nil {
			return fi.Size()
		}
		return 0
	}
	before := size(path) + size(path+"-wal")
	if _, err := s.Purge(PurgeFilter{Session: "s0"}, false, true); err != nil {
		t.Fatal(err)
	}
	db, wal := size(path), size(path+"-wal")
	if db+wal >= before*3/4 {
		t.Errorf("purge --vacuum of half the events: %d bytes before, %d (db) + %d (wal) after", before, db, wal)
	}
	if wal > 64<<10 {
		t.Errorf("the WAL holds %d bytes after purge --vacuum", wal)
	}
	if stats, _ := other.Stats(""); stats.Events != 100 {
		t.Errorf("the other connection sees %d events, want 100", stats.Events)
	}
}

// TestIDsNotReusedAfterPurge: purging the newest events does not let
// their ids be given again. The shipper resumes after the highest local
// id the shared store holds; a reused id would never be shipped.
func TestIDsNotReusedAfterPurge(t *testing.T) {
	path := filepath.Join(testdir.New(t), "ids.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ids, err := s.Apply([]abi.Event{mcpEvent("s1", "first"), mcpEvent("s1", "second"), mcpEvent("s2", "third")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Purge(PurgeFilter{Session: "s2"}, false, false); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(path, Options{}); err != nil { // the highest id is not kept in memory
		t.Fatal(err)
	}
	again, err := s.Apply([]abi.Event{mcpEvent("s3", "fourth")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again[0] <= ids[2] {
		t.Fatalf("after purging id %d, the next event got id %d", ids[2], again[0])
	}
}

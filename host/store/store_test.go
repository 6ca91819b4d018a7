package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/internal/testdir"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/google/go-cmp/cmp"
)

func open(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(testdir.New(t), "data", "ctxhook.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ev(session, server, tool, text string) abi.Event {
	return abi.Event{TimeMS: 1, Session: session, Harness: "claude-code", HookEvent: "PostToolUse",
		Category: "mcp", Server: server, Tool: tool, Args: `{"q":1}`, Response: `[{"type":"text","text":"x"}]`,
		Text: text, ResponseBytes: len(text)}
}

func TestSearch(t *testing.T) {
	s := open(t)
	_, err := s.Apply([]abi.Event{
		ev("s1", "jira", "mcp__jira__get_issue", "Ticket CVX-5909: payments are failing in checkout"),
		ev("s1", "sentry", "mcp__sentry__get_event", "TypeError in getUserById at src/api/users.ts:42"),
		ev("s2", "jira", "mcp__jira__get_issue", "Ticket CVX-1000: the printers were configured"),
	}, []abi.Effect{{Op: abi.OpTally, Session: "s1", Name: abi.TallyRelayed, Count: 2}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, query string
		opts        SearchOptions
		want        []int64
	}{
		{"ticket id", "CVX-5909", SearchOptions{}, []int64{1}},
		{"stemming", "configure printer", SearchOptions{}, []int64{3}},
		{"camelCase substring via trigram", "UserBy", SearchOptions{}, []int64{2}},
		{"path", "users.ts", SearchOptions{}, []int64{2}},
		{"session filter", "Ticket", SearchOptions{Session: "s2"}, []int64{3}},
		{"server filter", "Ticket", SearchOptions{Server: "jira", Session: "s1"}, []int64{1}},
		// "NOT" is a word, and filler: what is left, payments, is found.
		{"operators are literal", `NOT "payments`, SearchOptions{}, []int64{1}},
		{"limit", "Ticket", SearchOptions{Limit: 1}, []int64{3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := s.Search(ParseQuery(tt.query), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, h := range hits {
				got = append(got, h.Event.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := s.Search(ParseQuery("   "), SearchOptions{}); !errors.Is(err, ErrEmptyQuery) {
		t.Errorf("empty query err = %v", err)
	}
	hits, _ := s.Search(ParseQuery("CVX-5909"), SearchOptions{})
	if len(hits) != 1 || !strings.Contains(hits[0].Snippet, "CVX-5909") {
		t.Errorf("snippet = %+v", hits)
	}
	st, err := s.Stats("s1")
	if err != nil {
		t.Fatal(err)
	}
	if st.Events != 2 || st.Tallies[abi.TallyRelayed] != 2 || st.ByServer["sentry"] != 1 {
		t.Errorf("stats = %+v", st)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Event(99); !errors.Is(err, ErrNotFound) {
		t.Errorf("Event(99) err = %v", err)
	}
}

func TestFileModes(t *testing.T) {
	unixModes(t)
	old := syscallUmask(0o002)
	defer syscallUmask(old)
	dir := filepath.Join(testdir.New(t), "data")
	s, err := Open(filepath.Join(dir, "ctxhook.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Apply([]abi.Event{ev("s", "x", "t", "body")}, nil); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", fi.Mode().Perm())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) < 2 {
		t.Fatalf("expected db and wal, got %v", files)
	}
	for _, f := range files {
		fi, _ := os.Stat(f)
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", filepath.Base(f), fi.Mode().Perm())
		}
	}
}

func TestMigrateRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(testdir.New(t), "db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.conn.Exec("PRAGMA user_version=999")
	s.Close()
	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseQuery(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"CVX-5909", []string{"CVX-5909"}},
		{` a  "b c" d`, []string{"a", "b c", "d"}},
		{`"unclosed phrase`, []string{"unclosed phrase"}},
		{`""`, nil},
		{`x"y`, []string{"x", "y"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ParseQuery(tt.in).Terms); diff != "" {
			t.Errorf("ParseQuery(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// FuzzQuery: no user input may produce an FTS5 syntax error or a panic.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{"CVX-5909", `"a b" c`, `NOT x*`, `a:b`, `(`, `"`, "ü\x00"} {
		f.Add(s)
	}
	s, err := Open(filepath.Join(testdir.New(f), "db"), Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Apply([]abi.Event{ev("s", "x", "t", "hello world CVX-5909")}, nil); err != nil {
		f.Fatal(err)
	}
	// And a body in parts, so queries go through the parts' indexes too.
	old := PartSize
	PartSize = 1024
	_, err = s.Apply([]abi.Event{ev("s", "x", "t", strings.Repeat("hello world CVX-5909 getUserById ", 200))}, nil)
	PartSize = old
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		q := ParseQuery(in)
		for _, term := range q.Terms {
			if term == "" {
				t.Fatal("empty term")
			}
		}
		_, err := s.Search(q, SearchOptions{})
		if errors.Is(err, ErrQueryTooLong) != q.tooLong() {
			t.Fatalf("Search(%q): %v, but tooLong is %v", in, err, q.tooLong())
		}
		if err != nil && !errors.Is(err, ErrEmptyQuery) && !errors.Is(err, ErrQueryTooLong) {
			t.Fatalf("Search(%q): %v", in, err)
		}
	})
}

// A reader re-creates -wal and -shm after the last writer closed; they must
// still be 0600 under a permissive umask.
func TestReaderCreatesPrivateFiles(t *testing.T) {
	unixModes(t)
	dir := filepath.Join(testdir.New(t), "data")
	path := filepath.Join(dir, "ctxhook.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Apply([]abi.Event{ev("s", "x", "t", "body")}, nil)
	s.Close()
	old := syscallUmask(0o022)
	defer syscallUmask(old)
	r, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Search(ParseQuery("body"), SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		if fi, _ := os.Stat(f); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", filepath.Base(f), fi.Mode().Perm())
		}
	}
}

// FuzzSnippet: when the body holds the term, the snippet shows it, whatever
// bytes come before it (invalid UTF-8, letters whose lower case is longer).
// The snippet is cut from the body with its JSON escapes undone, so the
// term is looked for there ("\\t" is a tab, and holds no "t").
func FuzzSnippet(f *testing.F) {
	f.Add(strings.Repeat("\xff", 40)+"\u0130\u0130\u0130 Ticket CVX-5909 here", "cvx-5909")
	f.Fuzz(func(t *testing.T, body, term string) {
		s := Snippet(body, []string{term}, 40)
		if term == "" || len(term) > 20 || strings.ContainsFunc(term, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
			return
		}
		if strings.Contains(asciiLower(indexText(body)), asciiLower(term)) && !strings.Contains(asciiLower(s), asciiLower(term)) {
			t.Fatalf("snippet %q of %q misses %q", s, body, term)
		}
	})
}

func TestSearchFiltersTotalAndRefs(t *testing.T) {
	s := open(t)
	a := ev("s1", "jira", "mcp__jira__get_issue", "Ticket CVX-1 checkout failing")
	a.TimeMS, a.Key = 1000, "e0123456789abcdef"
	b := ev("s1", "jira", "mcp__jira__get_issue", "Ticket CVX-2 checkout slow")
	b.TimeMS, b.Category, b.ContextBytes, b.ResponseBytes = 2000, "error", 100, 5000
	c := ev("s1", "sentry", "mcp__sentry__get_event", "checkout TypeError")
	c.TimeMS = 3000
	// What shaping kept out is the plugin's tally (counted only when the
	// answer reached the harness), not the events' sizes.
	kept := []abi.Effect{{Op: abi.OpTally, Session: "s1", Name: abi.TallyKeptOut, Count: 4900}}
	if _, err := s.Apply([]abi.Event{a, b, c}, kept); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		o     SearchOptions
		want  []int64
		total int
	}{
		{"all, limit 1, total 3", SearchOptions{Limit: 1}, []int64{3}, 3},
		{"category", SearchOptions{Category: "error"}, []int64{2}, 1},
		{"since", SearchOptions{SinceMS: 2000}, []int64{3, 2}, 2},
		{"until", SearchOptions{UntilMS: 2000}, []int64{1}, 1},
		{"server", SearchOptions{Server: "sentry"}, []int64{3}, 1},
	}
	for _, tt := range tests {
		hits, total, err := s.SearchTotal(ParseQuery("checkout"), tt.o)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, h := range hits {
			got = append(got, h.Event.ID)
		}
		if !cmp.Equal(got, tt.want) || total != tt.total {
			t.Errorf("%s: got %v (total %d), want %v (total %d)", tt.name, got, total, tt.want, tt.total)
		}
	}
	for ref, want := range map[string]int64{"1": 1, "#2": 2, "e0123456789abcdef": 1} {
		e, err := s.EventByRef(ref)
		if err != nil || e.ID != want {
			t.Errorf("EventByRef(%q) = %d, %v", ref, e.ID, err)
		}
	}
	if _, err := s.EventByRef("enope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown key: %v", err)
	}
	// ReadBack finds what EventByRef finds, and not what it does not.
	for ref, want := range map[string]error{"1": nil, "#2": nil, "e0123456789abcdef": nil, "enope": ErrNotFound, "999": ErrNotFound} {
		if err := s.ReadBack(ref); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("ReadBack(%q) = %v, want %v", ref, err, want)
		}
	}
	st, err := s.Stats("s1")
	if err != nil || st.BytesKeptOut != 4900 || st.MCPCalls != 2 {
		t.Errorf("stats: kept %d, mcp %d (%v)", st.BytesKeptOut, st.MCPCalls, err)
	}
}

// TestConcurrentFirstOpen: processes opening a new store at once (the
// first hooks after an install) all succeed; one of them migrates.
func TestConcurrentFirstOpen(t *testing.T) {
	for round := 0; round < 5; round++ {
		path := filepath.Join(testdir.New(t), "c.db")
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := Open(path, Options{BusyTimeout: 10 * time.Second})
				if err == nil {
					s.Close()
				}
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestApplyOnce: a named batch (a spool line, a hook request) applied
// twice is stored once; batches without a name are always stored (a
// harness replaying a payload on purpose).
func TestApplyOnce(t *testing.T) {
	s, err := Open(filepath.Join(testdir.New(t), "o.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ev := []abi.Event{{TimeMS: 1, Session: "s", Harness: "claude-code", HookEvent: "PostToolUse", Category: "mcp", Tool: "t", ToolUseID: "toolu_1", Text: "x"}}
	for _, name := range []string{"1-2-3.jsonl:1", "req:abc-1", "1-2-3.jsonl:1", "req:abc-1"} {
		if _, err := s.ApplyOnce(Batch{Name: name}, ev, nil); err != nil {
			t.Fatal(err)
		}
	}
	if st, _ := s.Stats(""); st.Events != 2 {
		t.Fatalf("%d events after two names applied twice each, want 2", st.Events)
	}
	s.Apply(ev, nil)
	s.Apply(ev, nil)
	if st, _ := s.Stats(""); st.Events != 4 {
		t.Fatalf("%d events after two unnamed writes, want 4", st.Events)
	}
}

// TestCounts: the counts IndexState and ChunkCount give follow every
// insert and delete (events, chunks, a purge of one session), and Check
// holds.
func TestCounts(t *testing.T) {
	s, err := Open(filepath.Join(testdir.New(t), "c.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := func(events, chunks int64) {
		t.Helper()
		n, _, _, err := s.IndexState()
		c, cerr := s.ChunkCount()
		if n != events || c != chunks || err != nil || cerr != nil {
			t.Fatalf("counts: %d events, %d chunks (%v %v), want %d, %d", n, c, err, cerr, events, chunks)
		}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
	}
	want(0, 0)
	if _, err := s.Apply([]abi.Event{mcpEvent("a", "one"), mcpEvent("a", "two"), mcpEvent("b", "three")}, nil); err != nil {
		t.Fatal(err)
	}
	chunks := []abi.Chunk{{Session: "a", Harness: "claude-code", Path: "/t.jsonl", Text: "turn one"}, {Session: "a", Harness: "claude-code", Path: "/t.jsonl", Text: "turn two"}}
	if err := s.ApplyChunks("/t.jsonl", chunks, 100, 1000); err != nil {
		t.Fatal(err)
	}
	want(3, 2)
	if _, err := s.Purge(PurgeFilter{Session: "a"}, false, false); err != nil {
		t.Fatal(err)
	}
	want(1, 0)
}

// TestQueryBounds: a query past MaxQueryBytes or MaxQueryTerms is refused
// with ErrQueryTooLong (a 500 KB one ran SQLite out of memory); one at
// the limits is searched.
func TestQueryBounds(t *testing.T) {
	s := open(t)
	for _, tt := range []struct {
		q    string
		want error
	}{
		{strings.Repeat("a", 500<<10), ErrQueryTooLong},
		{strings.Repeat("ab ", MaxQueryTerms+1), ErrQueryTooLong},
		{strings.Repeat("ab ", MaxQueryTerms), nil},
		{strings.Repeat("a", MaxQueryBytes-1), nil},
		{"", ErrEmptyQuery},
	} {
		_, _, err := s.SearchTotal(ParseQuery(tt.q), SearchOptions{})
		if !errors.Is(err, tt.want) {
			t.Errorf("query of %d bytes: %v, want %v", len(tt.q), err, tt.want)
		}
	}
}

// TestRefusesOthersFiles: captured output never goes into a store file
// another user made first (a 0666 ctxhook.db in a shared directory), nor
// into a directory others may write; a file of this user's made under a
// permissive umask is tightened to 0600 and used.
func TestRefusesOthersFiles(t *testing.T) {
	unixModes(t)
	dir := filepath.Join(testdir.New(t), "shared")
	os.Mkdir(dir, 0o700)
	path := filepath.Join(dir, "ctxhook.db")
	os.WriteFile(path, nil, 0o666)
	os.Chmod(path, 0o666)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("this user's own 0666 store file: %v", err)
	}
	s.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("own store file left %v", fi.Mode().Perm())
	}
	os.Chmod(dir, 0o777)
	if _, err := Open(path, Options{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a store in a 0777 directory: %v", err)
	}
	os.Chmod(dir, 0o700)
	if os.Geteuid() != 0 {
		t.Log("not root: a file of another user is not tried (needs chown)")
		return
	}
	os.Chown(path, 65534, 65534)
	os.Chmod(path, 0o666)
	for _, ro := range []bool{false, true} {
		if _, err := Open(path, Options{ReadOnly: ro}); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
			t.Errorf("a store file of uid 65534 (read-only %v): %v", ro, err)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o666 {
		t.Errorf("another user's file was changed: %v", fi.Mode().Perm())
	}
}

// TestReadOnlyBeforeSchema: a reader that meets the store file before
// its first writer has created the schema (doctor run at once after
// install, while the daemon it started opens the store) sees a store
// that does not exist yet, not a damaged one.
func TestReadOnlyBeforeSchema(t *testing.T) {
	dir := testdir.New(t)
	path := filepath.Join(dir, "ctxhook.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, Options{ReadOnly: true}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a store without its schema, read-only: err = %v, want one that is fs.ErrNotExist", err)
	}
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("after the writer made the schema: %v", err)
	}
	if _, err := r.Stats(""); err != nil {
		t.Fatal(err)
	}
	r.Close()
}

package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ctxhook/ctxhook/internal/testdir"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/fts5"
)

// logBody returns n bytes of log-like text (JSON lines of words, paths
// and random trace ids), the same for the same seed.
func logBody(n int, seed int64) string {
	r := rand.New(rand.NewSource(seed))
	words := strings.Fields("checkout payments gateway retry latency spike region rollback deploy canary timeout " +
		"database connection pool exhausted cache miss eviction queue backlog consumer lag worker crashed " +
		"memory leak goroutine panic nil pointer dereference handler middleware auth token expired refresh")
	var b strings.Builder
	b.Grow(n + 256)
	for b.Len() < n {
		fmt.Fprintf(&b, `{"ts":"2026-01-%02dT10:%02d:%02dZ","level":"info","msg":"%s %s %s","trace":"tr-%x","path":"src/svc%d/handler%d.go:%d"}`+"\n",
			r.Intn(28)+1, r.Intn(60), r.Intn(60), words[r.Intn(len(words))], words[r.Intn(len(words))], words[r.Intn(len(words))],
			r.Int63(), r.Intn(40), r.Intn(9), r.Intn(900))
	}
	return b.String()[:n]
}

// mcpEvent is an MCP event whose response renders as text.
func mcpEvent(session, text string) abi.Event {
	quoted, _ := json.Marshal(text)
	resp := `{"content":[{"type":"text","text":` + string(quoted) + `}]}`
	return abi.Event{TimeMS: 1000, Session: session, Harness: "claude-code", HookEvent: "PostToolUse", Category: "mcp",
		Server: "grafana", Tool: "mcp__grafana__query", Args: `{"q":"p99"}`, Response: resp, Text: text, ResponseBytes: len(resp)}
}

// planted is a body with unique terms planted where parts make finding
// them hard.
type planted struct {
	body               string
	start, middle, end string // single terms
	phrase             string // two words with the line break of a cut between them
	cut                int    // the cut the middle term straddles (-1: the body is whole)
}

// plant plants terms in body (log-like ASCII): one at the very start, one
// straddling a cut near the middle (inside a run without spaces, so the
// cut falls inside the term), a phrase across another cut (a line break)
// and one in the last 100 bytes. It checks the cuts with split.
func plant(t *testing.T, body string, size int) planted {
	t.Helper()
	p := planted{start: "zqstartmark", middle: "zqmiddlemark", end: "zqendmark", phrase: "zqphraseone zqphrasetwo", cut: -1}
	b := []byte(body)
	copy(b, p.start+" ")
	copy(b[len(b)-60:], " "+p.end+" ")
	starts := func() []int {
		out := []int{0}
		for _, piece := range split(string(b), size) {
			out = append(out, out[len(out)-1]+len(piece))
		}
		return out // piece i is b[out[i]:out[i+1]]
	}
	at := starts()
	if len(at) == 2 {
		// Whole: the middle term and the phrase in the middle.
		copy(b[len(b)/2:], " "+p.middle+" zqphraseone\nzqphrasetwo ")
		p.body = string(b)
		return p
	}
	// The middle: a run without spaces over where piece m's limit falls,
	// so the cut is exactly there, and the term across it. Cuts before
	// it do not move.
	m := (len(at) - 2) / 2
	limit := at[m] + size
	if m == 0 {
		limit = min(HeadSize, size) // the head's limit
	}
	w := min(8<<10, size/2)
	if limit+w >= len(b) {
		t.Fatalf("body too short to plant across a cut: %v", at)
	}
	for i := limit - w; i < limit+w; i++ {
		b[i] = 'a' + byte(i%26)
	}
	copy(b[limit-len(p.middle)/2:], p.middle)
	p.cut = limit
	// The phrase: around an earlier cut (after a line break), else in
	// the last piece.
	if m == 0 {
		copy(b[len(b)-500:], " zqphraseone\nzqphrasetwo ")
	} else {
		c := at[max(m/2, 1)]
		if b[c-1] != '\n' {
			t.Fatalf("cut %d is not after a line break: %q", c, b[c-20:c+20])
		}
		copy(b[c-len("zqphraseone")-2:], " zqphraseone\n")
		copy(b[c:], "zqphrasetwo ")
		if !slices.Contains(starts(), c) {
			t.Fatalf("the phrase's cut %d moved", c)
		}
	}
	if !slices.Contains(starts(), limit) {
		t.Fatalf("the middle cut %d moved: %v", limit, starts())
	}
	p.body = string(b)
	return p
}

// counts returns the rows of the parts table and of each full-text index.
func counts(t *testing.T, s *Store) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"event_parts", "event_parts_fts", "event_parts_tri", "event_parts_fts_docsize",
		"event_parts_tri_docsize", "events_fts", "events_tri", "events"} {
		n, err := s.count(`SELECT count(*) FROM `+table, nil)
		if err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// readAll pages through a field with ReadBody.
func readAll(t *testing.T, s *Store, id int64, f Field, page int64) string {
	t.Helper()
	var b strings.Builder
	for off := int64(0); ; off += page {
		chunk, err := s.ReadBody(id, f, off, page)
		if err != nil {
			t.Fatal(err)
		}
		if chunk == "" {
			return b.String()
		}
		b.WriteString(chunk)
	}
}

// openCapped opens a store whose SQLite may use at most maxMem bytes.
func openCapped(t *testing.T, path string, maxMem int64) *Store {
	t.Helper()
	conn, err := sqlite3.OpenContext(sqlite3.WithMaxMemory(context.Background(), maxMem), path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newStore(conn, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// capMemory caps SQLite's memory for the 64 MiB bodies (two events of
// 64 MiB of text and as much response, in one batch) well below one
// body: inserting part by part peaks at about 28 MiB, whatever the size
// of the body. Indexing a 64 MiB body as one document runs out of memory
// even at the library's default cap, 256 MiB.
const capMemory = 48 << 20

// TestBodiesInParts: bodies of every size are stored whole or in parts,
// every planted term is found (and its snippet and offset point at it),
// paging and streaming give back the exact bytes, and deleting leaves no
// part and no index row.
func TestBodiesInParts(t *testing.T) {
	// Trigrams throughout, as words: a term cut in two is found wherever
	// the cut falls (TestTrigramReach covers the trigram bound).
	defer func(v int64) { TrigramBytes = v }(TrigramBytes)
	TrigramBytes = 1 << 62
	tests := []struct {
		name string
		size int
	}{
		{"1KB", 1000},
		{"1MiB", 1 << 20},
		{"1MiB+300KiB", 1<<20 + 300<<10},
		{"64MiB", 64 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.size > 8<<20 && testing.Short() {
				t.Skip("64 MiB: not with -short")
			}
			path := filepath.Join(testdir.New(t), "p.db")
			var s *Store
			if tt.size > 8<<20 {
				s = openCapped(t, path, capMemory)
			} else {
				s = open(t)
			}
			p := plant(t, logBody(tt.size, int64(tt.size)), PartSize)
			big := mcpEvent("s1", p.body)
			small := ev("s2", "jira", "mcp__jira__get_issue", "Ticket CVX-5909 zqmiddlemark too")
			start := time.Now()
			ids, err := s.Apply([]abi.Event{big, big, small}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("applied 2 x %d bytes in %v", tt.size, time.Since(start))
			e, err := s.Event(ids[0])
			if err != nil {
				t.Fatal(err)
			}
			wantParts, respParts := len(split(p.body, PartSize))-1, len(split(big.Response, PartSize))-1
			if e.TextSize != int64(len(p.body)) || e.ResponseSize != int64(len(big.Response)) || e.TextParts != wantParts ||
				e.ResponseParts != respParts || len(e.Text) > maxHead(e.TextParts) || len(e.Response) > maxHead(e.ResponseParts) ||
				!strings.HasPrefix(p.body, e.Text) || !strings.HasPrefix(big.Response, e.Response) || e.Whole() != (wantParts+respParts == 0) {
				t.Fatalf("event: text %d/%d bytes in %d parts, response %d/%d in %d", len(e.Text), e.TextSize, e.TextParts,
					len(e.Response), e.ResponseSize, e.ResponseParts)
			}
			if wantParts > 0 && p.cut < 0 {
				t.Fatal("nothing planted across a cut")
			}
			for _, term := range []string{p.start, p.middle, p.end, `"` + p.phrase + `"`} {
				hits, total, err := s.SearchTotal(ParseQuery(term), SearchOptions{Session: "s1"})
				if err != nil {
					t.Fatal(err)
				}
				if len(hits) != 2 || total != 2 || hits[0].Event.ID != ids[1] || hits[1].Event.ID != ids[0] {
					t.Fatalf("%s: %d hits (total %d), want events %v", term, len(hits), total, ids[:2])
				}
				word := strings.Fields(strings.Trim(term, `"`))[0]
				h := hits[1]
				if !strings.Contains(h.Snippet, word) {
					t.Errorf("%s: snippet %q", term, h.Snippet)
				}
				if got, _ := s.ReadBody(h.Event.ID, FieldText, h.Offset, int64(len(word))); got != word {
					t.Errorf("%s: offset %d reads %q", term, h.Offset, got)
				}
				if len(h.Event.Text) > maxHead(wantParts) {
					t.Errorf("a hit loaded %d bytes of text", len(h.Event.Text))
				}
			}
			// Unfiltered, the small event holding the middle term comes too.
			if _, total, _ := s.SearchTotal(ParseQuery(p.middle), SearchOptions{}); total != 3 {
				t.Errorf("middle term: total %d, want 3", total)
			}
			// Every byte back, paged at an odd size and streamed.
			for _, f := range []struct {
				field Field
				want  string
			}{{FieldText, p.body}, {FieldResponse, big.Response}} {
				if got := readAll(t, s, ids[0], f.field, 256<<10+7); got != f.want {
					t.Fatalf("%s paged: %d bytes, want %d (equal prefix %d)", f.field, len(got), len(f.want), commonPrefix(got, f.want))
				}
				var buf bytes.Buffer
				if n, err := s.WriteBody(&buf, ids[0], f.field); err != nil || n != int64(len(f.want)) || buf.String() != f.want {
					t.Fatalf("%s streamed: %d bytes, %v", f.field, n, err)
				}
			}
			if got, err := s.ReadBody(ids[0], FieldText, int64(len(p.body))-50, 1<<20); err != nil || got != p.body[len(p.body)-50:] {
				t.Errorf("the last 50 bytes: %q %v", got, err)
			}
			if got, err := s.ReadBody(ids[0], FieldText, int64(len(p.body))+10, 10); err != nil || got != "" {
				t.Errorf("past the end: %q %v", got, err)
			}
			if evs, err := s.Around(ids[1], 1, 1); err != nil || len(evs) != 2 || len(evs[0].Text) > maxHead(wantParts) {
				t.Errorf("around: %d events, %v", len(evs), err)
			}
			if err := s.Check(); err != nil {
				t.Fatal(err)
			}
			// DeleteEvents, then Purge: no part and no index row left.
			before := counts(t, s)
			if err := s.DeleteEvents(ids[:1]); err != nil {
				t.Fatal(err)
			}
			after := counts(t, s)
			perEvent := wantParts + respParts
			if before["event_parts"]-after["event_parts"] != perEvent || after["event_parts"] != perEvent ||
				after["event_parts_fts"] != wantParts || after["event_parts_tri_docsize"] != wantParts || after["events_fts"] != 2 {
				t.Fatalf("after DeleteEvents: %v (before %v)", after, before)
			}
			if err := s.Check(); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Purge(PurgeFilter{Session: "s1"}, false, false); err != nil {
				t.Fatal(err)
			}
			for table, n := range counts(t, s) {
				if want := map[bool]int{true: 1, false: 0}[strings.HasPrefix(table, "events")]; n != want {
					t.Errorf("after Purge: %s has %d rows, want %d", table, n, want)
				}
			}
			for _, term := range []string{p.start, p.end, `"` + p.phrase + `"`} {
				if hits, _ := s.Search(ParseQuery(term), SearchOptions{}); len(hits) != 0 {
					t.Errorf("%s found after purge", term)
				}
			}
			if err := s.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// maxHead is the most of a body an event's row holds.
func maxHead(parts int) int {
	if parts > 0 {
		return HeadSize
	}
	return PartSize
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// TestSplit: pieces are at most the size, put back together give the
// body, and end after a line break, else a space, else punctuation, else
// at a character boundary.
func TestSplit(t *testing.T) {
	filler := strings.Repeat("x", 100)
	tests := []struct {
		name, body string
		size       int
		want       []string
	}{
		{"short", "hello", 10, []string{"hello"}},
		{"empty", "", 10, []string{""}},
		{"exact", "0123456789", 10, []string{"0123456789"}},
		{"line break first", filler[:50] + "a b\nc d" + filler[:50], 60, []string{filler[:50] + "a b\n", "c d" + filler[:50]}},
		{"then space", filler[:50] + "ab cd" + filler[:50], 60, []string{filler[:50] + "ab ", "cd" + filler[:50]}},
		{"then punctuation", filler[:50] + "ab,cd" + filler[:50], 60, []string{filler[:50] + "ab,", "cd" + filler[:50]}},
		{"a boundary only far back is not used", "a " + filler, 60, []string{"a " + filler[:58], filler[58:]}},
		{"then a character boundary", filler[:58] + "éé" + filler[:10], 60, []string{filler[:58] + "é", "é" + filler[:10]}},
		{"never inside a character", filler[:59] + "é" + filler[:10], 60, []string{filler[:59], "é" + filler[:10]}},
	}
	old := HeadSize
	HeadSize = 20
	defer func() { HeadSize = old }()
	if got := split(strings.Repeat("x", 220), 100); len(got) != 3 || len(got[0]) != 20 || len(got[1]) != 100 || len(got[2]) != 100 {
		t.Errorf("a head of 20 bytes, parts of 100: %d pieces of %d, %d...", len(got), len(got[0]), len(got[1]))
	}
	HeadSize = old
	for _, tt := range tests {
		if got := split(tt.body, tt.size); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: split = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// FuzzSplit: whatever the body, its pieces put back together are the
// body, none is empty or over the size, and a valid UTF-8 body is never
// cut inside a character.
func FuzzSplit(f *testing.F) {
	f.Add("hello world, this is a body\nof lines", 8)
	f.Add(strings.Repeat("é", 40), 7)
	f.Fuzz(func(t *testing.T, body string, size int) {
		size = minPartSize + int(uint(size)%200)
		pieces := split(body, size)
		if strings.Join(pieces, "") != body {
			t.Fatal("pieces do not make the body")
		}
		for i, p := range pieces {
			if len(p) > size || (p == "" && body != "") {
				t.Fatalf("piece %d: %d bytes (size %d)", i, len(p), size)
			}
			if utf8.ValidString(body) && !utf8.ValidString(p) {
				t.Fatalf("piece %d cut inside a character: %q", i, p)
			}
		}
		if len(pieces) > 1 {
			tail := overlapTail(pieces[0])
			if !strings.HasSuffix(pieces[0], tail) || len(tail) > partOverlap {
				t.Fatalf("overlap %q of %q", tail, pieces[0])
			}
		}
	})
}

// small lowers PartSize for one test.
func small(t *testing.T, size int) {
	old := PartSize
	PartSize = size
	t.Cleanup(func() { PartSize = old })
}

// TestTermsAcrossParts: an event holds the terms of a query when each is
// somewhere in it (its tool, server or arguments, the head, any part),
// though no one part holds them all; events holding every term rank
// before those holding some (want: the ones holding all, in order), and
// each is counted once.
func TestTermsAcrossParts(t *testing.T) {
	small(t, 4096)
	s := open(t)
	body := logBody(40_000, 7)
	b := []byte(body)
	copy(b[100:], " zqalpha ")
	copy(b[20_000:], " zqbeta ")
	copy(b[36_000:], " zqgamma ")
	spread := mcpEvent("s1", string(b))
	together := mcpEvent("s1", "zqalpha and zqbeta, together")
	together.Server, together.Tool, together.Args = "jira", "mcp__jira__get", "{}"
	alone := mcpEvent("s1", "zqbeta alone")
	alone.Args = "{}"
	// A response without text: the response is what is indexed.
	raw := mcpEvent("s3", "")
	raw.Response = strings.NewReplacer("zqalpha", "zqdelta", "zqbeta ", "zqomega", "zqgamma", "zqkappa").Replace(string(b))
	ids, err := s.Apply([]abi.Event{spread, together, alone, raw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := s.Event(ids[3]); e.BodyField() != FieldResponse || e.ResponseParts < 5 || e.TextSize != 0 {
		t.Fatalf("response only: %+v", e)
	}
	tests := []struct {
		query string
		o     SearchOptions
		want  []int64
	}{
		{"zqalpha zqbeta", SearchOptions{}, []int64{ids[1], ids[0]}},
		{"zqbeta zqgamma", SearchOptions{}, []int64{ids[0]}},
		{"zqalpha zqbeta zqgamma", SearchOptions{}, []int64{ids[0]}},
		{"grafana zqgamma", SearchOptions{}, []int64{ids[0]}}, // the server's name and the last part
		{"p99 zqbeta", SearchOptions{}, []int64{ids[0]}},      // the arguments and a middle part
		{"zqalph zqgamm", SearchOptions{}, []int64{ids[0]}},   // substrings: the trigram index
		{"zqalpha zqbeta", SearchOptions{Server: "grafana"}, []int64{ids[0]}},
		{"zqalpha zqbeta", SearchOptions{Session: "s2"}, nil},
		{"zqdelta", SearchOptions{}, []int64{ids[3]}},
		{"zqkappa zqdelta", SearchOptions{}, []int64{ids[3]}},
		{"zqalpha nothere", SearchOptions{}, nil},
	}
	for _, tt := range tests {
		hits, total, err := s.SearchTotal(ParseQuery(tt.query), tt.o)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		partial := false
		for _, h := range hits {
			if len(h.Missing) > 0 {
				partial = true
				continue
			}
			if partial {
				t.Errorf("%q: a complete match after a partial one: %+v", tt.query, hits)
			}
			got = append(got, h.Event.ID)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) || total != len(hits) || total < len(tt.want) {
			t.Errorf("%q %+v: %v (total %d), want %v", tt.query, tt.o, got, total, tt.want)
		}
		for _, h := range hits {
			if (h.Event.ID == ids[0] || h.Event.ID == ids[3]) && !strings.Contains(h.Snippet, "zq") {
				t.Errorf("%q: snippet %q", tt.query, h.Snippet)
			}
		}
	}
}

// TestMigrateFromV4: a store written by the schema before parts (user
// version 4) is read as it is, read-only, and once migrated keeps its old
// events readable and searchable next to new ones in parts.
func TestMigrateFromV4(t *testing.T) {
	path := filepath.Join(testdir.New(t), "old.db")
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := fts5.Register(conn); err != nil {
		t.Fatal(err)
	}
	if err := conn.Exec(journalPragmas); err != nil {
		t.Fatal(err)
	}
	for i, m := range migrations[:4] {
		if err := conn.Exec(m); err != nil {
			t.Fatal(err)
		}
		conn.Exec(fmt.Sprintf("PRAGMA user_version=%d", i+1))
	}
	// The version-4 write path: bodies whole in the row.
	oldBody := "Ticket CVX-77 " + logBody(3<<20, 3) + " zqoldend"
	for _, sql := range []string{
		`INSERT INTO events(id, ts_ms, session, harness, hook_event, category, tool, server, args, response, text, response_bytes, event_key)
			VALUES(1, 1, 's', 'claude-code', 'PostToolUse', 'mcp', 'mcp__jira__get', 'jira', '{}', '[{"type":"text"}]', ?1, 100, 'e0123456789abcdef')`,
		`INSERT INTO events_fts(rowid, tool, server, args, body) VALUES(1, 'mcp__jira__get', 'jira', '{}', ?1)`,
		`INSERT INTO events_tri(rowid, body) VALUES(1, 'mcp__jira__get' || char(10) || '{}' || char(10) || ?1)`,
	} {
		st, _, err := conn.Prepare(sql)
		if err != nil {
			t.Fatal(err)
		}
		st.BindText(1, oldBody)
		if err := st.Exec(); err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	conn.Close()

	check := func(s *Store) {
		t.Helper()
		e, err := s.EventByRef("e0123456789abcdef")
		if err != nil || e.Text != oldBody || e.TextSize != int64(len(oldBody)) || !e.Whole() || e.ResponseSize != 17 {
			t.Fatalf("old event: %d bytes, size %d, %v", len(e.Text), e.TextSize, err)
		}
		for _, q := range []string{"CVX-77", "zqoldend"} {
			if hits, err := s.Search(ParseQuery(q), SearchOptions{}); err != nil || len(hits) != 1 {
				t.Fatalf("search %s: %v %v", q, hits, err)
			}
		}
		if got := readAll(t, s, 1, FieldText, 1<<20); got != oldBody {
			t.Fatalf("old body paged: %d bytes", len(got))
		}
		if st, err := s.Stats(""); err != nil || st.BytesStored != int64(len(oldBody)+len(`[{"type":"text"}]`)+2) {
			t.Fatalf("stats: %d bytes stored, %v", st.BytesStored, err)
		}
	}
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	check(ro)
	if n, _, _, err := ro.IndexState(); n != 1 || err != nil {
		t.Fatalf("index state of the old store: %d events, %v", n, err)
	}
	ro.Close()

	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.userVersion(); v != SchemaVersion || SchemaVersion != 7 {
		t.Fatalf("version %d, schema %d", v, SchemaVersion)
	}
	// The retention counts start from the events already there.
	if n, err := s.countOf(`SELECT n FROM event_total`); n != 1 || err != nil {
		t.Fatalf("event_total %d after migrating a store of 1 event (%v)", n, err)
	}
	if n, err := s.countOf(`SELECT n FROM event_counts WHERE session = 's'`); n != 1 || err != nil {
		t.Fatalf("event_counts of s: %d (%v)", n, err)
	}
	if n, err := s.countOf(`SELECT last FROM event_ids`); n != 1 || err != nil {
		t.Fatalf("event_ids %d after migrating a store whose highest id is 1 (%v)", n, err)
	}
	check(s)
	ids, err := s.Apply([]abi.Event{mcpEvent("s", oldBody)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if hits, _ := s.Search(ParseQuery("zqoldend"), SearchOptions{}); len(hits) != 2 || hits[0].Event.ID+hits[1].Event.ID != 1+ids[0] {
		t.Fatalf("old and new: %v", hits)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Purge(PurgeFilter{All: true}, false, false); err != nil {
		t.Fatal(err)
	}
	if c := counts(t, s); c["events"]+c["event_parts"]+c["event_parts_fts"]+c["events_fts"] != 0 {
		t.Fatalf("after purge: %v", c)
	}
}

// TestPurgeParts: what Purge removes of a body in parts is gone from the
// database files, and retention evicts parts with their events.
func TestPurgeParts(t *testing.T) {
	small(t, 4096)
	path := filepath.Join(testdir.New(t), "p.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var events []abi.Event
	for i := range 6 {
		b := []byte(logBody(30_000, int64(i)))
		copy(b[25_000:], fmt.Sprintf(" zqmark%dpurged ", i))
		e := mcpEvent(fmt.Sprintf("s%d", i%2), string(b))
		e.Category = []string{abi.CategoryMCP, abi.CategoryShell}[i%2]
		events = append(events, e)
	}
	if _, err := s.Apply(events, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Purge(PurgeFilter{Session: "s0"}, false, false); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 2, 4} {
		m := fmt.Sprintf("zqmark%dpurged", i)
		if hits, _ := s.Search(ParseQuery(m), SearchOptions{}); len(hits) != 0 {
			t.Errorf("%s still found", m)
		}
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if b, _ := os.ReadFile(path + suffix); bytes.Contains(b, []byte(m)) {
				t.Errorf("%s still in %s", m, filepath.Base(path+suffix))
			}
		}
	}
	if hits, _ := s.Search(ParseQuery("zqmark3purged"), SearchOptions{}); len(hits) != 1 {
		t.Errorf("an event of the other session went")
	}
	// Retention: the shell events go first, parts and all.
	if n, err := s.Enforce(Retention{MaxEvents: 1}); err != nil || n != 2 {
		t.Fatalf("evicted %d, %v", n, err)
	}
	c := counts(t, s)
	e, _ := s.Event(6)
	if c["events"] != 1 || c["event_parts"] != e.TextParts+e.ResponseParts || c["event_parts_fts"] != e.TextParts || e.TextParts < 5 {
		t.Fatalf("after retention: %v, kept event %d with %d+%d parts", c, e.ID, e.TextParts, e.ResponseParts)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	// Check sees a part gone missing.
	s.conn.Exec(`DELETE FROM event_parts WHERE seq = 2 AND field = 'response'`)
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), "parts") {
		t.Fatalf("Check with a part missing: %v", err)
	}
}

// TestTrigramReach: words are found anywhere in a body, substrings (the
// trigram index) within its first TrigramBytes only; the parts past it
// are indexed for words alone, and Check agrees.
func TestTrigramReach(t *testing.T) {
	s := open(t)
	body := []byte(logBody(3<<20, 7))
	copy(body[TrigramBytes/2:], " zqnearXsubstringY ")
	copy(body[len(body)-100:], " zqfarXsubstringY ")
	ids, err := s.Apply([]abi.Event{mcpEvent("s1", string(body))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkFound(t, s, ids[0], []found{
		{"zqnearXsubstringY", true}, {"zqfarXsubstringY", true}, // words
		{"nearXsubstr", true}, // a substring in the first TrigramBytes
		{"farXsubstr", false}, // a substring past it
	})
	if err := s.Check(); err != nil {
		t.Error(err)
	}
}

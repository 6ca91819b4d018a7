package store

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/internal/testdir"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestBigBodyTimings measures, on one store (2,000 small events, then
// bodies of 1 KB, 1 MiB, 10 MiB and 64 MiB, each text plus its JSON
// response): each insert, how soon a reader polling on another connection
// finds the term at the end of the body after its Apply started, and
// searches, pages and streams against all of them. It asserts the 10 MiB
// event is searchable within 2 s (on an otherwise idle 2-core machine).
// Run it with CTXHOOK_TIMINGS=1 (it takes about a minute).
func TestBigBodyTimings(t *testing.T) {
	if os.Getenv("CTXHOOK_TIMINGS") == "" {
		t.Skip("set CTXHOOK_TIMINGS=1")
	}
	s, err := Open(filepath.Join(testdir.New(t), "t.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var batch []abi.Event
	for i := range 2000 {
		batch = append(batch, mcpEvent("small", fmt.Sprintf("Ticket CVX-%d %s", i, logBody(1500, int64(i)))))
	}
	if _, err := s.Apply(batch, nil); err != nil {
		t.Fatal(err)
	}
	// A reader polls from another connection, as ctxhook mcp would.
	reader, err := Open(s.Path(), Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	ids := map[string]int64{}
	for _, size := range []struct {
		name string
		n    int
	}{{"1KB", 1000}, {"1MiB", 1 << 20}, {"10MiB", 10 << 20}, {"64MiB", 64 << 20}} {
		body := []byte(logBody(size.n, int64(size.n)))
		copy(body, " zqstart"+size.name+" ")
		copy(body[len(body)/2:], " zqmid"+size.name+" ")
		copy(body[len(body)-60:], " zqend"+size.name+" ")
		e := mcpEvent("big", string(body))
		q := ParseQuery("zqend" + size.name)
		start := time.Now()
		seen := make(chan time.Duration)
		go func() {
			for {
				if hits, _ := reader.Search(q, SearchOptions{}); len(hits) == 1 {
					seen <- time.Since(start)
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
		id, err := s.Apply([]abi.Event{e}, nil)
		if err != nil {
			t.Fatal(err)
		}
		applied := time.Since(start)
		found := <-seen
		ids[size.name] = id[0]
		t.Logf("insert %-6s (text %d B + response %d B): Apply %v; a reader finds its last term %v after Apply started",
			size.name, len(e.Text), len(e.Response), applied.Round(time.Millisecond), found.Round(time.Millisecond))
		if size.name == "10MiB" && found > 2*time.Second {
			t.Errorf("10 MiB searchable after %v, want under 2 s", found)
		}
	}
	timed := func(what string, n int, fn func() error) {
		t.Helper()
		start := time.Now()
		for range n {
			if err := fn(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
		t.Logf("%-58s %v", what, (time.Since(start) / time.Duration(n)).Round(10*time.Microsecond))
	}
	for _, name := range []string{"1KB", "1MiB", "10MiB", "64MiB"} {
		for _, where := range []string{"start", "mid", "end"} {
			q := ParseQuery("zq" + where + name)
			timed("search "+where+" of "+name, 10, func() error {
				hits, err := s.Search(q, SearchOptions{})
				if err == nil && len(hits) != 1 {
					err = fmt.Errorf("%d hits", len(hits))
				}
				return err
			})
		}
	}
	timed("search a common word (2,004 matches, limit 10)", 10, func() error {
		_, _, err := s.SearchTotal(ParseQuery("checkout"), SearchOptions{})
		return err
	})
	timed("search two terms in different parts of 64MiB", 10, func() error {
		hits, err := s.Search(ParseQuery("zqstart64MiB zqend64MiB"), SearchOptions{})
		if err == nil && len(hits) != 1 {
			err = fmt.Errorf("%d hits", len(hits))
		}
		return err
	})
	id := ids["64MiB"]
	e, _ := s.Event(id)
	timed("Event(64MiB) (heads only)", 10, func() error { _, err := s.Event(id); return err })
	for _, off := range []int64{0, e.TextSize / 2, e.TextSize - 32<<10} {
		timed(fmt.Sprintf("ReadBody 64MiB text, 32 KiB at %d", off), 10, func() error {
			_, err := s.ReadBody(id, FieldText, off, 32<<10)
			return err
		})
	}
	timed("ReadBody 64MiB response, 256 KiB at the middle", 10, func() error {
		_, err := s.ReadBody(id, FieldResponse, e.ResponseSize/2, 256<<10)
		return err
	})
	timed("WriteBody 64MiB text to io.Discard", 3, func() error {
		_, err := s.WriteBody(io.Discard, id, FieldText)
		return err
	})
	timed("Check", 1, s.Check)
}

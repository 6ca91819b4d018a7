package store

import (
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestDerivedResponse: a text-block event is stored as its text alone,
// and every reader gets the response rebuilt, byte for byte what
// abi.TextBlockResponse gives: whole, paged at any offset, streamed, and
// in the event's head; its size is known without rebuilding it.
func TestDerivedResponse(t *testing.T) {
	for _, size := range []int{40, 1000, 1<<20 + 300<<10} {
		s := open(t)
		text := logBody(size, int64(size))
		text = "quote \" backslash \\ tab \t nul \x00 é " + text
		e := ev("s1", "jira", "mcp__jira__search", text)
		e.Text, e.Response, e.ResponseForm = text, "", abi.ResponseFormTextBlock
		ids, err := s.Apply([]abi.Event{e}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := abi.TextBlockResponse(text)
		got, err := s.Event(ids[0])
		if err != nil {
			t.Fatal(err)
		}
		if got.ResponseSize != int64(len(want)) || !strings.HasPrefix(want, got.Response) || got.Whole() && got.Response != want {
			t.Fatalf("%d: event response %d bytes (size %d), want a head of %d", size, len(got.Response), got.ResponseSize, len(want))
		}
		all, err := s.ReadBody(ids[0], FieldResponse, 0, int64(len(want))+10)
		if err != nil || all != want {
			t.Fatalf("%d: ReadBody whole: %d bytes, %v", size, len(all), err)
		}
		var paged strings.Builder
		for off := int64(0); off < int64(len(want)); off += 7777 {
			p, err := s.ReadBody(ids[0], FieldResponse, off, 7777)
			if err != nil {
				t.Fatal(err)
			}
			paged.WriteString(p)
		}
		if paged.String() != want {
			t.Fatalf("%d: pages do not add up", size)
		}
		var w strings.Builder
		if n, err := s.WriteBody(&w, ids[0], FieldResponse); err != nil || n != int64(len(want)) || w.String() != want {
			t.Fatalf("%d: WriteBody %d %v", size, n, err)
		}
		st, _ := s.Stats("")
		if st.BytesStored >= int64(len(want)+len(text)) {
			t.Errorf("%d: %d bytes stored counts the rebuilt response", size, st.BytesStored)
		}
		if err := s.Check(); err != nil {
			t.Error(err)
		}
	}
}

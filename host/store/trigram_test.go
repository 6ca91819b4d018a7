package store

import (
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestTrigramHeadReach: a body stored whole in its row (up to PartSize)
// is in the trigram index for its first TrigramBytes, like a body in
// parts, and in the word index all through.
func TestTrigramHeadReach(t *testing.T) {
	defer func(v int64) { TrigramBytes = v }(TrigramBytes)
	TrigramBytes = 64 << 10 // below PartSize, so a whole body reaches past it
	s := open(t)
	body := []byte(logBody(PartSize-(64<<10), 11))
	copy(body[TrigramBytes/2:], " zqheadXsubstringY ")
	copy(body[len(body)-100:], " zqtailXsubstringY ")
	ids, err := s.Apply([]abi.Event{mcpEvent("s1", string(body))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		query string
		found bool
	}{
		{"zqheadXsubstringY", true}, {"zqtailXsubstringY", true}, // words
		{"headXsubstr", true},  // a substring in the first TrigramBytes
		{"tailXsubstr", false}, // a substring past it
	} {
		hits, err := s.Search(ParseQuery(tt.query), SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(hits) == 1 && hits[0].Event.ID == ids[0]; got != tt.found {
			t.Errorf("%s: found %v, want %v", tt.query, got, tt.found)
		}
	}
	if err := s.Check(); err != nil {
		t.Error(err)
	}
}

// TestTrigramHeadCut: the head's trigram text ends at a character start.
func TestTrigramHeadCut(t *testing.T) {
	long := make([]byte, TrigramBytes+8)
	for i := range long {
		long[i] = 'a'
	}
	copy(long[TrigramBytes-1:], "€") // a character across the limit
	got := trigramHead(string(long))
	if int64(len(got)) != TrigramBytes-1 {
		t.Errorf("cut at %d, want %d (before the character)", len(got), TrigramBytes-1)
	}
	if short := "short"; trigramHead(short) != short {
		t.Error("a short head was cut")
	}
}

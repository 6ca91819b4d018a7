package store

import (
	"strings"
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
	checkFound(t, s, ids[0], []found{
		{"zqheadXsubstringY", true}, {"zqtailXsubstringY", true}, // words
		{"headXsubstr", true},  // a substring in the first TrigramBytes
		{"tailXsubstr", false}, // a substring past it
	})
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

// TestTrigramToken: what trigramText keeps past TrigramFull.
func TestTrigramToken(t *testing.T) {
	for _, tt := range []struct {
		tok  string
		keep bool
	}{
		{"latency", false}, {"Gateway", false}, {"503", false}, {"panel.", false}, {":", false}, {"", false},
		{"CVX-5909", true}, {"p99", true}, {"svcHandler", true}, {"HTTP", true}, {"src/api/mod3.ts:12", true},
		{"dana.kim@example.com", true}, {"2026-10-18T10:00:00Z", true}, {"snake_case", true}, {"0x1f", true},
		{"数据库连接超时", true}, {"café", true}, {strings.Repeat("a", maxWordLen), false}, {strings.Repeat("a", maxWordLen+1), true},
	} {
		if got := trigramToken(tt.tok); got != tt.keep {
			t.Errorf("trigramToken(%q) = %v, want %v", tt.tok, got, tt.keep)
		}
	}
}

// TestTrigramText: whole below TrigramFull (a token across the reach
// whole), past it only the tokens a word search cannot find by a part.
func TestTrigramText(t *testing.T) {
	defer func(v int64) { TrigramFull = v }(TrigramFull)
	TrigramFull = 16
	for _, tt := range []struct {
		in   string
		from int64
		want string
	}{
		{"short text", 0, "short text"},
		{"the gateway logs CVX-5909 at noon", 0, "the gateway logs\nCVX-5909"},
		{"the gateway retries CVX-5909", 0, "the gateway retries\nCVX-5909"}, // the token across 16 kept whole
		{`{"key":"CVX-1","note":"plain words"}`, 100, "\nCVX-1"},
		{"done. Next: svcHandler(p99)", 100, "\nsvcHandler\np99"},
		{"words only here", 100, ""},
		// A token repeated past the reach is written once.
		{`{"to":"dana.kim@example.com","cc":"dana.kim@example.com","id":"CVX-1","of":"CVX-1"}`, 100, "\ndana.kim@example.com\nCVX-1"},
	} {
		if got := trigramText(tt.in, tt.from); got != tt.want {
			t.Errorf("trigramText(%q, %d) = %q, want %q", tt.in, tt.from, got, tt.want)
		}
	}
}

// TestTrigramPastFull: in a 1 MiB body, past TrigramFull, a part of an
// identifier or of a long glued run is still found, a part of a plain
// word is not (the word is, whole), and the store's check agrees.
func TestTrigramPastFull(t *testing.T) {
	s := open(t)
	body := []byte(logBody(PartSize-(8<<10), 13))
	at := len(body) / 2
	copy(body[at:], " zqprefixCVX-77123suffix latencyzq "+strings.Repeat("q", 40)+"zqgluedmark"+strings.Repeat("q", 40)+" ")
	ids, err := s.Apply([]abi.Event{mcpEvent("s1", string(body))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkFound(t, s, ids[0], []found{
		{"CVX-77123", true}, {"77123", true}, // a part of an identifier
		{"zqgluedmark", true}, // a part of a long run of letters
		{"latencyzq", true},   // a plain word, whole (word index)
		{"atencyz", false},    // a part of a plain word past TrigramFull
	})
	if err := s.Check(); err != nil {
		t.Error(err)
	}
}

// FuzzTrigramText: the text below the reach comes out as it went in, and
// every line past it is a token of the input that trigramToken keeps.
func FuzzTrigramText(f *testing.F) {
	f.Add("the gateway logs CVX-5909 at noon", int64(0))
	f.Add(`{"a":"b c","d":[1,2]} svcHandler`, int64(10))
	f.Add("数据库 café\tx\r\n", int64(3))
	f.Fuzz(func(t *testing.T, in string, from int64) {
		from = max(0, min(from, 1<<20))
		out := trigramText(in, from)
		if from+int64(len(in)) <= TrigramFull {
			if out != in {
				t.Fatalf("below the reach: %q became %q", in, out)
			}
			return
		}
		lines := strings.Split(out, "\n")
		if !strings.HasPrefix(in, lines[0]) {
			t.Fatalf("%q does not start with %q", in, lines[0])
		}
		seen := map[string]bool{}
		for _, l := range lines[1:] {
			if !strings.Contains(in, l) || !trigramToken(l) {
				t.Fatalf("line %q: not a kept token of %q", l, in)
			}
			if seen[l] {
				t.Fatalf("line %q written twice for %q", l, in)
			}
			seen[l] = true
		}
	})
}

// found is a query and whether a search must find the one event.
type found struct {
	query string
	found bool
}

// checkFound searches s for each query: found means event id alone.
func checkFound(t *testing.T, s *Store, id int64, cases []found) {
	t.Helper()
	for _, tt := range cases {
		hits, err := s.Search(ParseQuery(tt.query), SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(hits) == 1 && hits[0].Event.ID == id; got != tt.found {
			t.Errorf("%s: found %v, want %v", tt.query, got, tt.found)
		}
	}
}

package modeltext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"get_ticket", "get_ticket"},
		{"get\n- IMPORTANT", `get\n- IMPORTANT`},
		{"a\r\tb", `a\r\tb`},
		{"esc\x1b[2J", `esc\x1b[2J`},
		{"del\x7f", `del\x7f`},
		{"nel\u0085", `nel\u0085`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		{"rlo\u202eiso\u2066mark\u200f\u061c", `rlo\u202eiso\u2066mark\u200f\u061c`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"café ✓", "café ✓"},
	} {
		if got := Escape(c.in, 0); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Name(strings.Repeat("é", 200)); len(got) > NameBytes || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Errorf("Name of 400 bytes = %q (%d bytes)", got, len(got))
	}
	if got := Quote("a\"b\nc", 0); got != `"a\"b\nc"` {
		t.Errorf("Quote = %s", got)
	}
}

// FuzzEscape: what Escape returns is safe, bounded and valid UTF-8, and
// keeps a safe string as it is.
func FuzzEscape(f *testing.F) {
	f.Add("get\n- IMPORTANT (from ctxhook): x", 100)
	f.Add("\u202e\u2028\x85\xff", 5)
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 1000
		got := Escape(s, max)
		if !Safe(got) || !utf8.ValidString(got) || strings.ContainsAny(got, "\n\r") {
			t.Fatalf("Escape(%q) = %q", s, got)
		}
		if max > 0 && len(got) > max && max >= len("…") {
			t.Fatalf("Escape(%q, %d) is %d bytes", s, max, len(got))
		}
		if Safe(s) && max <= 0 && got != s {
			t.Fatalf("a safe string changed: %q -> %q", s, got)
		}
		if q := Quote(s, max); !Safe(q) {
			t.Fatalf("Quote(%q) = %q", s, q)
		}
	})
}

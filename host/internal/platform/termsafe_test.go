package platform

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain text\nline two\ttab", "plain text\nline two\ttab"},
		{"\x1b]52;c;ZWNobyBwd25lZA==\x07", `\x1b]52;c;ZWNobyBwd25lZA==\x07`}, // clipboard write
		{"\x1b]0;owned\x07title", `\x1b]0;owned\x07title`},                   // window title
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},                                   // clear screen
		{"a\rb\x00c\x7fd", `a\x0db\x00c\x7fd`},
		{"csi \u009b31m c1", `csi \u009b31m c1`}, // C1 CSI
		{"é ü ñ 日本 \u00a0", "é ü ñ 日本 \u00a0"},   // letters and U+00A0 stay
	} {
		if got := TermSafe(tt.in); got != tt.want {
			t.Errorf("TermSafe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSplitWrites: a C1 control split across two writes is still caught.
func TestSplitWrites(t *testing.T) {
	var out bytes.Buffer
	w := NewTermWriter(&out)
	w.Write([]byte("x\xc2"))
	w.Write([]byte("\x9by \xc2"))
	w.Write([]byte("\xa0z\xc2"))
	w.Flush()
	if got, want := out.String(), "x\\u009by \u00a0z\xc2"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// FuzzWriter: whatever the input and however it is split, the output
// holds no control character but tab and newline, and valid UTF-8 input
// stays valid UTF-8.
func FuzzWriter(f *testing.F) {
	f.Add([]byte("\x1b]52;c;aGk=\x07 \xc2\x9b hello"), 3)
	f.Add([]byte("é\xc2"), 1)
	f.Fuzz(func(t *testing.T, in []byte, split int) {
		var out bytes.Buffer
		w := NewTermWriter(&out)
		if split > 0 && split < len(in) {
			w.Write(in[:split])
			w.Write(in[split:])
		} else {
			w.Write(in)
		}
		w.Flush()
		o := out.Bytes()
		for i, c := range o {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				t.Fatalf("control byte %#x at %d in %q", c, i, o)
			}
			if c == 0xc2 && i+1 < len(o) && o[i+1] >= 0x80 && o[i+1] <= 0x9f {
				t.Fatalf("C1 control at %d in %q", i, o)
			}
		}
		if utf8.Valid(in) && !utf8.Valid(o) {
			t.Fatalf("valid input %q gave invalid output %q", in, o)
		}
	})
}

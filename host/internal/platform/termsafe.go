// Terminal safety: this file makes text from tool output safe to print on a
// terminal. Captured responses are hostile text: an escape sequence in
// one can write the clipboard (OSC 52), retitle the window, clear the
// screen or hide what follows. Human output of `search` and `show` goes
// through TermWriter, which prints every control character (C0 but tab and
// newline, DEL, and C1) as a visible escape such as \x1b. --json output
// keeps the bytes (JSON escapes control characters itself).

package platform

import (
	"fmt"
	"io"
)

// TermWriter passes text to W with control characters made visible.
type TermWriter struct {
	W io.Writer
	// lead is a 0xC2 byte held back from the last Write: with the next
	// byte it may be a C1 control (U+0080-U+009F) in UTF-8.
	lead bool
	buf  []byte
}

// NewTermWriter returns a TermWriter on w.
func NewTermWriter(w io.Writer) *TermWriter { return &TermWriter{W: w} }

// Write writes p with its control characters escaped. It reports len(p)
// when all of it was written.
func (t *TermWriter) Write(p []byte) (int, error) {
	b := t.buf[:0]
	i := 0
	if t.lead {
		t.lead = false
		if len(p) > 0 && p[0] >= 0x80 && p[0] <= 0x9f {
			b = fmt.Appendf(b, `\u%04x`, p[0])
			i = 1
		} else {
			b = append(b, 0xc2)
		}
	}
	for ; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\n' || c == '\t':
			b = append(b, c)
		case c < 0x20 || c == 0x7f:
			b = fmt.Appendf(b, `\x%02x`, c)
		case c == 0xc2 && i+1 == len(p):
			t.lead = true
		case c == 0xc2 && p[i+1] >= 0x80 && p[i+1] <= 0x9f:
			b = fmt.Appendf(b, `\u%04x`, p[i+1])
			i++
		default:
			b = append(b, c)
		}
	}
	t.buf = b
	if _, err := t.W.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a byte held back at the end of the last Write.
func (t *TermWriter) Flush() error {
	if !t.lead {
		return nil
	}
	t.lead = false
	_, err := t.W.Write([]byte{0xc2})
	return err
}

// TermSafe returns s with its control characters made visible.
func TermSafe(s string) string {
	var b stringsBuilder
	w := NewTermWriter(&b)
	w.Write([]byte(s))
	w.Flush()
	return string(b)
}

type stringsBuilder []byte

func (s *stringsBuilder) Write(p []byte) (int, error) { *s = append(*s, p...); return len(p), nil }

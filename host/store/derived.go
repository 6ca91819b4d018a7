package store

import (
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// Derived responses.
//
// An event whose response was exactly one MCP text block comes from the
// plugin with its text alone (abi.ResponseFormTextBlock): the response
// is abi.TextBlockResponse(text), and the store keeps no copy of it.
// Readers get it rebuilt from the text: Event's Response is the head of
// it, ResponseSize its whole size (computed when it is stored), and
// ReadBody and WriteBody rebuild the range they are asked for.

// derivedSize is the size of a derived response. It escapes the text a
// piece at a time into one small buffer and counts: building the whole
// response only to take its length cost the writer a copy of every big
// body, grown by doubling (a fifth of its time on a 64 MiB result).
func derivedSize(form, text string) int64 {
	if form != abi.ResponseFormTextBlock {
		return 0
	}
	n := int64(len(abi.TextBlockPrefix) + 2 + len(abi.TextBlockSuffix)) // the quotes too
	var buf []byte
	for len(text) > 0 {
		k := len(text)
		if k > derivedPiece {
			k = runeCut(text, derivedPiece)
		}
		buf = abi.AppendJSONStringBody(buf[:0], text[:k])
		n += int64(len(buf))
		text = text[k:]
	}
	return n
}

// derivedPiece is how much text derivedSize escapes at once.
const derivedPiece = 64 << 10

// runeCut returns where to end a piece of s at most limit bytes long: at
// a byte that starts a character, so no piece ends inside a UTF-8
// sequence (AppendJSONStringBody would take its bytes for invalid). A
// character start is never the middle of a sequence, so pieces escape to
// what the whole would. With no start in reach (not UTF-8), any cut.
func runeCut(s string, limit int) int {
	for n := limit; n > 0 && n > limit-utf8.UTFMax; n-- {
		if utf8.RuneStart(s[n]) {
			return n
		}
	}
	return limit
}

// derivedHead is the start of a derived response built from the text
// head textHead (whole: the text is all there, so the response is too),
// at most HeadSize bytes unless whole.
func derivedHead(form, textHead string, whole bool) string {
	if form != abi.ResponseFormTextBlock {
		return ""
	}
	if whole {
		return abi.TextBlockResponse(textHead)
	}
	b := append([]byte(abi.TextBlockPrefix), '"')
	b = abi.AppendJSONStringBody(b, textHead)
	if len(b) > HeadSize {
		b = b[:HeadSize]
	}
	return string(b)
}

// writeDerived writes the derived response of event id, whose form is
// form, to w: built a text part at a time.
func (s *Store) writeDerived(w io.Writer, id int64, form string) (int64, error) {
	if form != abi.ResponseFormTextBlock {
		return 0, fmt.Errorf("store: event %d: response form %q unknown to this ctxhook", id, form)
	}
	var n int64
	write := func(b []byte) error {
		k, err := w.Write(b)
		n += int64(k)
		return err
	}
	if err := write([]byte(abi.TextBlockPrefix + `"`)); err != nil {
		return n, err
	}
	var buf []byte
	_, err := s.writeStored(writerFunc(func(p []byte) (int, error) {
		buf = abi.AppendJSONStringBody(buf[:0], string(p))
		return len(p), write(buf)
	}), id, FieldText)
	if err != nil {
		return n, err
	}
	return n, write([]byte(`"` + abi.TextBlockSuffix))
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// window collects bytes [from, to) of what is written through it and
// stops the writer (errStop) once it has them.
type window struct {
	from, to, at int64
	out          []byte
}

var errStop = fmt.Errorf("store: read enough")

func (w *window) Write(p []byte) (int, error) {
	start, end := w.at, w.at+int64(len(p))
	w.at = end
	if end > w.from && start < w.to {
		w.out = append(w.out, p[max(w.from-start, 0):min(w.to-start, int64(len(p)))]...)
	}
	if w.at >= w.to {
		return len(p), errStop
	}
	return len(p), nil
}

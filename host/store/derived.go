package store

import (
	"fmt"
	"io"

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

// derivedSize is the size of a derived response.
func derivedSize(form, text string) int64 {
	if form != abi.ResponseFormTextBlock {
		return 0
	}
	return int64(len(abi.TextBlockPrefix) + len(abi.AppendJSONString(nil, text)) + len(abi.TextBlockSuffix))
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

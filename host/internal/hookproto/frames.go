// Frames: length-prefixed byte strings over the daemon's socket. They use
// nothing heavier than encoding/binary, because the client links them and
// must start as fast as an empty Go program.

package hookproto

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/ctxhook/ctxhook/host/internal/bigbuf"
)

// MaxField bounds one field: a payload, with room for the environment.
const MaxField = MaxInput + 1<<16

// ErrTooLarge is returned for a field over MaxField.
var ErrTooLarge = errors.New("wire: field too large")

// Write writes fields as one message: a count, then each field's length
// and bytes, all lengths big-endian uint32. Small fields go out in one
// write; a large one (a payload) is written as it is, not copied into
// the frame first.
func Write(w io.Writer, fields ...[]byte) error {
	buf := make([]byte, 0, 4+8*len(fields))
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(fields)))
	for _, f := range fields {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(f)))
		if len(f) < 64<<10 {
			buf = append(buf, f...)
			continue
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		if _, err := w.Write(f); err != nil {
			return err
		}
		buf = buf[:0]
	}
	if len(buf) == 0 {
		return nil
	}
	_, err := w.Write(buf)
	return err
}

// Read reads one message written by Write.
func Read(r io.Reader) ([][]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	count := binary.BigEndian.Uint32(h[:])
	if count > 64 {
		return nil, ErrTooLarge
	}
	fields := make([][]byte, 0, count)
	for i := uint32(0); i < count; i++ {
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return nil, err
		}
		n := binary.BigEndian.Uint32(h[:])
		if n > MaxField {
			return nil, ErrTooLarge
		}
		f := field(int(n))
		if _, err := io.ReadFull(r, f); err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// field is room for a field of n bytes: a large one is not cleared
// first, as make would (the read fills it), and is put in huge pages
// (bigbuf): on a fresh 64 MiB payload clearing and first touches cost
// more than the read.
func field(n int) []byte {
	if n < 64<<10 {
		return make([]byte, n)
	}
	return bigbuf.Make(n)
}

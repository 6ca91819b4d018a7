// Frames: length-prefixed byte strings over the daemon's socket. They use
// nothing heavier than encoding/binary, because the client links them and
// must start as fast as an empty Go program.

package hookproto

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/ctxhook/ctxhook/host/internal/platform"
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

// Read reads one message written by Write: at most 64 fields of at most
// MaxField bytes each. It is for answers, which come from the daemon of
// this user's own build; a daemon reads requests with ReadAdmitted.
func Read(r io.Reader) ([][]byte, error) {
	return read(r, nil, nil)
}

// ErrShape is returned for a message whose field count or a field's
// declared length is not what the reader takes: nothing of it was
// allocated.
var ErrShape = errors.New("wire: message of another shape")

// Admit is asked for room before a field is allocated: i is the field's
// place, n its declared length, got the fields read before it. An error
// stops the read there (and is returned): the field is never allocated.
// The bytes it grants are the caller's to give back, whatever Read
// returns.
type Admit func(i, n int, got [][]byte) error

// ReadAdmitted reads one message whose fields are at most maxLen[i]
// bytes each, exactly len(maxLen) of them, so that the message's declared
// size is checked against its bound as each length arrives, before
// anything is allocated for it; each field is allocated only once admit
// has granted its bytes. A peer can then make the reader hold no more
// than the sum of maxLen, and only what admit allows.
func ReadAdmitted(r io.Reader, maxLen []int, admit Admit) ([][]byte, error) {
	return read(r, maxLen, admit)
}

func read(r io.Reader, maxLen []int, admit Admit) ([][]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	count := binary.BigEndian.Uint32(h[:])
	if count > 64 {
		return nil, ErrTooLarge
	}
	if maxLen != nil && int(count) != len(maxLen) {
		return nil, ErrShape
	}
	fields := make([][]byte, 0, count)
	for i := range int(count) {
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return nil, err
		}
		n := binary.BigEndian.Uint32(h[:])
		if n > MaxField {
			return nil, ErrTooLarge
		}
		if maxLen != nil && int64(n) > int64(maxLen[i]) {
			return nil, ErrShape
		}
		if admit != nil {
			if err := admit(i, int(n), fields); err != nil {
				return nil, err
			}
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
// (platform.BigBuffer): on a fresh 64 MiB payload clearing and first touches cost
// more than the read.
func field(n int) []byte {
	if n < 64<<10 {
		return make([]byte, n)
	}
	return platform.BigBuffer(n)
}

package hookproto

import (
	"bytes"
	"errors"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var b bytes.Buffer
	in := [][]byte{[]byte("build"), nil, []byte("payload {}")}
	if err := Write(&b, in...); err != nil {
		t.Fatal(err)
	}
	out, err := Read(&b)
	if err != nil || len(out) != 3 || string(out[0]) != "build" || len(out[1]) != 0 || string(out[2]) != "payload {}" {
		t.Fatalf("%q %v", out, err)
	}
}

func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	Write(&b, []byte("a"), []byte("bc"))
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		fields, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		var again bytes.Buffer
		Write(&again, fields...)
		if !bytes.HasPrefix(data, again.Bytes()) {
			t.Fatalf("re-encoding differs")
		}
	})
}

// TestReadAdmitted: a message of another shape (field count, a field over
// its bound) is refused before anything is allocated or admitted, and a
// field admit refuses is never read.
func TestReadAdmitted(t *testing.T) {
	shape := []int{4, 1 << 20}
	frame := func(fields ...[]byte) *bytes.Buffer {
		var b bytes.Buffer
		Write(&b, fields...)
		return &b
	}
	for _, c := range []struct {
		name    string
		in      *bytes.Buffer
		refuse  int // field admit refuses (-1: none)
		err     error
		admits  int
		nFields int
	}{
		{"whole", frame([]byte("id"), []byte("payload")), -1, nil, 2, 2},
		{"too many fields", frame([]byte("id"), nil, nil), -1, ErrShape, 0, 0},
		{"field over its bound", frame([]byte("build"), nil), -1, ErrShape, 0, 0},
		{"refused by admit", frame([]byte("id"), make([]byte, 1<<20)), 1, errRefused, 2, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			admits := 0
			got, err := ReadAdmitted(c.in, shape, func(i, n int, _ [][]byte) error {
				admits++
				if i == c.refuse {
					return errRefused
				}
				return nil
			})
			if err != c.err || admits != c.admits || len(got) != c.nFields {
				t.Fatalf("err %v, %d admits, %d fields; want %v, %d, %d", err, admits, len(got), c.err, c.admits, c.nFields)
			}
		})
	}
}

var errRefused = errors.New("refused")

func FuzzReadAdmitted(f *testing.F) {
	var b bytes.Buffer
	Write(&b, []byte("a"), []byte("bc"))
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		granted := 0
		fields, err := ReadAdmitted(bytes.NewReader(data), []int{8, 64}, func(i, n int, _ [][]byte) error {
			granted += n
			return nil
		})
		if err != nil {
			return
		}
		total := 0
		for _, f := range fields {
			total += len(f)
		}
		if len(fields) != 2 || total != granted {
			t.Fatalf("%d fields of %d bytes, %d granted", len(fields), total, granted)
		}
	})
}

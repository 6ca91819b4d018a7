package hookproto

import (
	"bytes"
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

package proxy

import (
	"bytes"
	"testing"
	"testing/iotest"
)

// FuzzReadLines: the proxy's framing passes every line of at most max
// bytes (its newline counted) whole and trimmed, reports every longer one
// with at most 64 KiB of its head and its true size, and never holds more
// than that: whatever the input, however the reads split it.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte("{\"id\":1}\n\n  {\"id\":2}  \r\n{\"id\":3}"), 8, false)
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nb\n"), 4, true)
	f.Add(bytes.Repeat([]byte("x"), 70000), 10, true)
	f.Fuzz(func(t *testing.T, in []byte, max int, oneByte bool) {
		if max < 1 || max > 1<<20 {
			return
		}
		type got struct {
			line []byte
			size int64
			long bool
		}
		var out []got
		r := bytes.NewReader(in)
		var src = any(r).(interface{ Read([]byte) (int, error) })
		if oneByte {
			src = iotest.OneByteReader(r)
		}
		readLines(src, max, func(l []byte) {
			if len(l) > max {
				t.Fatalf("a line of %d bytes passed a limit of %d", len(l), max)
			}
			out = append(out, got{line: append([]byte(nil), l...)})
		}, func(head []byte, size int64) {
			if len(head) > 64<<10 || int64(len(head)) > size {
				t.Fatalf("head of %d bytes for a line of %d", len(head), size)
			}
			out = append(out, got{line: append([]byte(nil), head...), size: size, long: true})
		})
		// What it should be: the input cut at each newline.
		var want []got
		for rest := in; len(rest) > 0; {
			i := bytes.IndexByte(rest, '\n')
			raw := rest
			if i >= 0 {
				raw = rest[:i+1]
			}
			rest = rest[len(raw):]
			if len(raw) > max {
				want = append(want, got{line: raw[:min(len(raw), 64<<10)], size: int64(len(raw)), long: true})
			} else if t := bytes.TrimSpace(raw); len(t) > 0 {
				want = append(want, got{line: t})
			}
		}
		if len(out) != len(want) {
			t.Fatalf("%d lines, want %d", len(out), len(want))
		}
		for i := range want {
			if out[i].long != want[i].long || out[i].size != want[i].size || !bytes.Equal(out[i].line, want[i].line) {
				t.Fatalf("line %d: %+v, want %+v", i, out[i], want[i])
			}
		}
	})
}

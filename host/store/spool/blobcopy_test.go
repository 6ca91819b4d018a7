package spool

import (
	"bufio"
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestReadSpooledKeepsOneCopy: reading back a batch with a big body
// holds the body's bytes once, the blob as read, not a second copy made
// into a string (the writer of a 64 MiB result held 128 MiB for it).
func TestReadSpooledKeepsOneCopy(t *testing.T) {
	body := strings.Repeat("a line of the body to store\n", 300_000) // 8.4 MB
	e := event(body)
	e.Text = body[:len(body)/2]
	pieces, err := encodeSpooled(spooled{Events: []abi.Event{e}})
	if err != nil {
		t.Fatal(err)
	}
	file := bytes.Join(pieces, nil)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := readSpooled(bufio.NewReader(bytes.NewReader(file)), int64(len(file)))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if s.Events[0].Response != body || s.Events[0].Text != body[:len(body)/2] {
		t.Fatal("the bodies read back differ from those spooled")
	}
	blobs := len(body) + len(body)/2
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(blobs)+1<<20 {
		t.Errorf("reading %d bytes of blobs allocated %d bytes; want at most one copy", blobs, got)
	}
}

//go:build unix

package firing

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestTranscriptFIFONoHang: a recorded transcript path that is a FIFO
// (or a device, a link, another user's file) is not read: doctor and
// the status line return at once.
func TestTranscriptFIFONoHang(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "t.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // free a reader stuck on the FIFO
		if fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			syscall.Close(fd)
		}
	})
	for _, path := range []string{fifo, "/dev/zero"} {
		done := make(chan string, 1)
		go func() {
			v := versionOf(&Fired{Transcript: path}, nil)
			SessionQuiet(t.TempDir(), "claude-code", "s", path, time.Now())
			done <- v
		}()
		select {
		case v := <-done:
			if v != "" {
				t.Errorf("%s: version %q", path, v)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("reading the transcript %s hangs", path)
		}
	}
}

//go:build unix

package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadOwnFile: the host reads a file for the plugin only if it is a
// regular file of this user, opened without following a link; a FIFO
// (which would block the hook) and a link are refused at once.
func TestReadOwnFile(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "mcp-result.txt")
	os.WriteFile(plain, []byte("the saved result"), 0o600)
	if got, err := readOwnFile(plain); err != nil || got != "the saved result" {
		t.Fatalf("a plain file: %q %v", got, err)
	}
	link := filepath.Join(dir, "link.txt")
	os.Symlink(plain, link)
	fifo := filepath.Join(dir, "fifo.txt")
	syscall.Mkfifo(fifo, 0o600)
	for name, p := range map[string]string{"a link": link, "a FIFO": fifo, "a directory": dir, "a missing file": filepath.Join(dir, "nope")} {
		if got, err := readOwnFile(p); err == nil {
			t.Errorf("%s was read: %q", name, got)
		}
	}
	if os.Getuid() == 0 {
		other := filepath.Join(dir, "other.txt")
		os.WriteFile(other, []byte("someone else's"), 0o644)
		os.Chown(other, 65534, 65534)
		if _, err := readOwnFile(other); err == nil || !strings.Contains(err.Error(), "another user") {
			t.Errorf("a file of another user: %v", err)
		}
	}
	files := readFiles([]string{plain, link})
	if files[0].Content != "the saved result" || files[0].Bytes != 16 || files[1].Error == "" {
		t.Errorf("readFiles: %+v", files)
	}
}

// TestReadPayload: a payload in a file or in memory is read whole into
// one buffer of its size, one in a pipe whole too, and one larger than
// MaxInput is read one byte past it (so that it is refused, not cut).
func TestReadPayload(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{1, 1 << 20, MaxInput + 5} {
		want := bytes.Repeat([]byte("x"), n)
		f, err := os.Create(filepath.Join(dir, "p"))
		if err != nil {
			t.Fatal(err)
		}
		f.Write(want)
		f.Seek(0, 0)
		got, err := ReadPayload(f)
		f.Close()
		if err != nil || len(got) != min(n, MaxInput+1) || !bytes.Equal(got, want[:len(got)]) {
			t.Errorf("file of %d bytes: read %d (%v)", n, len(got), err)
		}
		got, err = ReadPayload(bytes.NewReader(want))
		if err != nil || len(got) != min(n, MaxInput+1) || !bytes.Equal(got, want[:len(got)]) {
			t.Errorf("%d bytes in memory: read %d (%v)", n, len(got), err)
		}
		if n > 1<<20 {
			continue
		}
		r, w, _ := os.Pipe()
		go func() { w.Write(want); w.Close() }()
		got, err = ReadPayload(r)
		r.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("pipe of %d bytes: read %d (%v)", n, len(got), err)
		}
	}
}

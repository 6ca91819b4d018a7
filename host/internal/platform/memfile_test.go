package platform

import (
	"bytes"
	"io"
	"runtime"
	"testing"
)

// TestMemFile: the file holds the bytes from its start, is this user's
// only, and on Linux is a memfd (no name on any file system). Windows
// files have no Unix mode (Go reports 0666): the check of the mode is
// for the systems that have one.
func TestMemFile(t *testing.T) {
	b := bytes.Repeat([]byte("payload "), 1<<17)
	f, err := MemFile(b)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("read back %d bytes (%v), want %d", len(got), err, len(b))
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() || runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 || fi.Size() != int64(len(b)) {
		t.Errorf("mode %v size %d", fi.Mode(), fi.Size())
	}
	if runtime.GOOS == "linux" && (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64") {
		m, err := memfd()
		if err != nil {
			t.Fatalf("no memfd: %v", err)
		}
		m.Close()
	}
}

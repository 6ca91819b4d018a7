package engine

import (
	"fmt"
	"io"
	"os"

	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// readOwnFile reads a regular file (not a link or a device) of at most
// abi.MaxFileBytes. Ownership is package owned's to judge (on Windows it
// checks nothing yet), on the file's name.
func readOwnFile(name string) (string, error) {
	if fi, err := os.Lstat(name); err != nil {
		return "", fmt.Errorf("open: %w", err)
	} else if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("not a regular file")
	}
	if err := platform.OwnedFile(name); err != nil {
		return "", err
	}
	f, err := os.Open(name)
	if err != nil {
		return "", fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("not a regular file")
	}
	if fi.Size() > abi.MaxFileBytes {
		return "", fmt.Errorf("%d bytes, over the %d MiB a hook reads", fi.Size(), abi.MaxFileBytes>>20)
	}
	b := make([]byte, fi.Size())
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF {
		return "", err
	}
	return string(b[:n]), nil
}

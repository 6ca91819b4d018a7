//go:build unix

package engine

import (
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

func readOwnFile(name string) (string, error) {
	fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", fmt.Errorf("open: %w", err)
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return "", err
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return "", fmt.Errorf("not a regular file")
	case int(st.Uid) != os.Getuid():
		return "", fmt.Errorf("owned by another user")
	case st.Size > abi.MaxFileBytes:
		return "", fmt.Errorf("%d bytes, over the %d MiB a hook reads", st.Size, abi.MaxFileBytes>>20)
	}
	b := make([]byte, st.Size)
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF {
		return "", err
	}
	return string(b[:n]), nil
}

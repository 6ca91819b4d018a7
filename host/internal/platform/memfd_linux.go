package platform

import (
	"errors"
	"os"
	"syscall"
	"unsafe"
)

func memfd() (*os.File, error) {
	if sysMemfdCreate == 0 {
		return nil, errors.ErrUnsupported
	}
	name := []byte("ctxhook-payload\x00")
	const mfdCloexec = 1
	fd, _, errno := syscall.Syscall(sysMemfdCreate, uintptr(unsafe.Pointer(&name[0])), mfdCloexec, 0)
	if errno != 0 {
		return nil, errno
	}
	// A memfd is created 0777; it has no path, but /proc/<pid>/fd names
	// it, so it is narrowed like any file of ours.
	if err := syscall.Fchmod(int(fd), 0o600); err != nil {
		syscall.Close(int(fd))
		return nil, err
	}
	return os.NewFile(fd, "ctxhook-payload"), nil
}

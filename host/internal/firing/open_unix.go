//go:build unix

package firing

import (
	"os"
	"syscall"
)

// openMine opens path for reading only when it is a regular file of
// this user's: not through a symbolic link (O_NOFOLLOW), never waiting
// on a FIFO or device (O_NONBLOCK), and checked on the open file, so
// what is read is what was checked. A transcript path comes from a hook
// payload; another user or a planted FIFO must not hang or feed doctor.
func openMine(path string) (*os.File, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG || int(st.Uid) != os.Getuid() {
		syscall.Close(fd)
		return nil, os.ErrPermission
	}
	return os.NewFile(uintptr(fd), path), nil
}

package platform

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// The whole file: LockFileEx locks a byte range; ctxhook's lock files are
// empty, so the range is all of any file's possible bytes.
const allLo, allHi = 0xFFFFFFFF, 0xFFFFFFFF

func tryLock(f *os.File) error {
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, allLo, allHi, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return ErrBusy
	}
	return err
}

func unlock(f *os.File) error {
	var ol windows.Overlapped
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, allLo, allHi, &ol)
}

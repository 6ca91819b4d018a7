// File locks. TryLock takes exclusive locks on open files, across processes:
// flock(2) on Unix, LockFileEx on Windows, each in a file of its own. A
// lock goes with the file: closing it (or the process ending) releases
// it, so a killed holder never leaves a lock behind.

package platform

import (
	"errors"
	"os"
)

// ErrBusy: another process holds the lock.
var ErrBusy = errors.New("flock: held by another process")

// TryLock takes f's exclusive lock without waiting: ErrBusy when another
// process holds it.
func TryLock(f *os.File) error { return tryLock(f) }

// Unlock releases f's lock.
func Unlock(f *os.File) error { return unlock(f) }

//go:build unix

package transcripts

import (
	"os"
	"syscall"
)

// openFlags: never through a symbolic link in the file's place, never
// waiting on a FIFO (one named as the transcript stalled every Stop hook
// until its deadline).
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOFOLLOW

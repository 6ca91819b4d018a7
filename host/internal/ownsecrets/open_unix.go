//go:build unix

package ownsecrets

import "syscall"

// noFollow and noBlock: the record is never opened through a link in its
// place, and neither it nor ~/.pgpass is waited on as a FIFO.
const (
	noFollow = syscall.O_NOFOLLOW
	noBlock  = syscall.O_NONBLOCK
)

//go:build unix

package spool

import "syscall"

// processGone: no process pid runs (a replay it left is an orphan).
func processGone(pid int) bool { return syscall.Kill(pid, 0) == syscall.ESRCH }

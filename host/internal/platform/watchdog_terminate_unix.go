//go:build unix

package platform

import "syscall"

// terminate ends pid as the kernel timer would: SIGTERM, which a Go
// process that does not listen for it dies of inside the signal handler.
func terminate(pid int) { syscall.Kill(pid, syscall.SIGTERM) }

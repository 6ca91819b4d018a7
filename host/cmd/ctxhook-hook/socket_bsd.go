//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package main

import "syscall"

// unixSocket makes a stream Unix socket closed on exec: BSDs (macOS) have
// no SOCK_CLOEXEC flag, so the flag is set under the lock that keeps a
// concurrent fork from inheriting the socket first.
func unixSocket() (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	return fd, err
}

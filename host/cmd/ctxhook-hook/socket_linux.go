package main

import "syscall"

// unixSocket makes a stream Unix socket closed on exec, in one call.
func unixSocket() (int, error) {
	return syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
}

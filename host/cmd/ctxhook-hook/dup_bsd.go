//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package main

import "syscall"

// dupStdin makes fd this process's stdin.
func dupStdin(fd int) error { return syscall.Dup2(fd, 0) }

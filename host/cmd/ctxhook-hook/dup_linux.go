package main

import "syscall"

// dupStdin makes fd this process's stdin (dup3: arm64 has no dup2).
func dupStdin(fd int) error { return syscall.Dup3(fd, 0, 0) }

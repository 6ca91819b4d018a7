//go:build unix

package platform

import "syscall"

// sysAttr puts the process in a session of its own.
func sysAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

func rootDir() string { return "/" }

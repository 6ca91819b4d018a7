//go:build unix

package store

import (
	"syscall"
	"testing"
)

func syscallUmask(m int) int { return syscall.Umask(m) }

// unixModes: the test checks Unix file modes, which this system has.
func unixModes(testing.TB) {}

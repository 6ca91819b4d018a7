package main

import (
	"os"
	"syscall"
)

// peakRSSMB is a finished process's peak resident set, in MB (Linux
// reports ru_maxrss in KiB).
func peakRSSMB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) >> 10
	}
	return 0
}

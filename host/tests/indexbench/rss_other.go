//go:build !linux

package main

import "os"

// peakRSSMB is not measured off Linux: the benchmark runs on Linux, and
// other systems report ru_maxrss in other units, or not at all.
func peakRSSMB(*os.ProcessState) int64 { return 0 }

//go:build !linux

package platform

import "time"

// ArmWatchdog ends the process if disarm is not called within d; onFail runs
// first when it can (only on the runtime-timer fallback).
//
// A timer of the Go runtime cannot do this alone: a guest call compiled
// without cancellation checks runs machine code the scheduler cannot
// preempt, and a collection that waits for it stops every goroutine,
// timers included. Where the kernel has no timer that signals the process
// (Linux's timer_create, watchdog_linux.go), a helper process, whose
// runtime the stuck one cannot stop, holds the deadline and ends this
// process when it passes (ServeWatchdog). Without a helper, the runtime timer.
func ArmWatchdog(d time.Duration, onFail func()) (disarm func()) {
	if disarm, ok := armHelper(d); ok {
		return disarm
	}
	return inRuntime(d, onFail)
}

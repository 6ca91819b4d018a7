package spool

import (
	"runtime"
	"syscall"
)

// background gives the calling goroutine a thread of its own at a lower
// CPU priority (nice 10; Linux sets nice per thread). The writer runs so:
// indexing a big response into SQLite competes for the same cores as
// the decisions agents wait for, and over a long session, as the indexes
// grow, it took an ever larger share of them (a proxy's calls through the
// daemon slowed from 9 to 15 ms p50 over 20,000 calls).
func background() {
	runtime.LockOSThread()
	syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 10)
}

// Package memtrim gives a long-lived process's free memory back to the
// system after big work (a 64 MiB result decided, forwarded or stored).
//
// The Go runtime keeps the heap it grew to: after one big message the
// collector's goal stays where that message put it, and an idle process
// allocates nothing that would start a collection to lower it, so the
// pages stay resident (a proxy kept 276 MB, a daemon about 400 MB). Big
// work is rare, so after it, once the process has done no more big work
// for Quiet, one debug.FreeOSMemory collects and returns the free pages.
// Not after every big message: a page's first touch costs about 10 µs on
// a virtual machine, and a run of big results would pay it again each
// time.
package memtrim

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Big is the least work that is followed by a trim.
const Big = 16 << 20

// Quiet is how long after the last big work the trim comes.
var Quiet = 2 * time.Second

var (
	mu    sync.Mutex
	timer *time.Timer
	busy  func() bool
	trims atomic.Int64
)

// SetBusy names what a trim must wait for: while busy reports true (the
// daemon's guest calls, which no collection can stop), the trim is put
// off by another Quiet.
func SetBusy(f func() bool) {
	mu.Lock()
	busy = f
	mu.Unlock()
}

// After records that work on n bytes has ended. Work of Big bytes or
// more (re)arms the trim.
func After(n int64) {
	if n < Big {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if timer == nil {
		timer = time.AfterFunc(Quiet, trim)
		return
	}
	timer.Reset(Quiet)
}

func trim() {
	mu.Lock()
	b := busy
	mu.Unlock()
	if b != nil && b() {
		mu.Lock()
		timer.Reset(Quiet)
		mu.Unlock()
		return
	}
	debug.FreeOSMemory()
	trims.Add(1)
}

// Trims is how many trims have run in this process.
func Trims() int64 { return trims.Load() }

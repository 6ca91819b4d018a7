package memtrim

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// waitTrims waits up to d for the trims to reach want.
func waitTrims(want int64, d time.Duration) int64 {
	until := time.Now().Add(d)
	for Trims() < want && time.Now().Before(until) {
		time.Sleep(10 * time.Millisecond)
	}
	return Trims()
}

// TestTrimAfterBigWork: big work is followed by one trim that returns a
// released big buffer's pages to the system; small work by none; a trim
// due while the process is busy waits until it is not.
func TestTrimAfterBigWork(t *testing.T) {
	Quiet = 50 * time.Millisecond
	start := Trims()
	After(Big - 1)
	if got := waitTrims(start+1, 300*time.Millisecond); got != start {
		t.Fatalf("small work was followed by %d trims", got-start)
	}

	buf := make([]byte, 256<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	buf = nil
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heldBefore := ms.HeapIdle - ms.HeapReleased
	After(Big)
	if got := waitTrims(start+1, 5*time.Second); got != start+1 {
		t.Fatalf("big work was followed by %d trims, want 1", got-start)
	}
	runtime.ReadMemStats(&ms)
	if held := ms.HeapIdle - ms.HeapReleased; held > 64<<20 {
		t.Errorf("after the trim the heap keeps %d MB of free pages (%d MB before it)", held>>20, heldBefore>>20)
	}

	var busy atomic.Bool
	busy.Store(true)
	SetBusy(busy.Load)
	defer SetBusy(nil)
	After(Big)
	if got := waitTrims(start+2, 300*time.Millisecond); got != start+1 {
		t.Fatalf("a trim ran while the process was busy")
	}
	busy.Store(false)
	if got := waitTrims(start+2, 5*time.Second); got != start+2 {
		t.Fatalf("the trim put off while busy never ran")
	}
}

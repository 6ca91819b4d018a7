package platform

import (
	"syscall"
	"time"
	"unsafe"
)

// sigevent is the kernel's struct sigevent, notify SIGEV_SIGNAL (0).
type sigevent struct {
	value  uintptr
	signo  int32
	notify int32
	_      [48]byte
}

type itimerspec struct {
	interval, value syscall.Timespec
}

const clockMonotonic = 1

// ArmWatchdog ends the process with SIGTERM if disarm is not called within d;
// onFail runs first when it can (only on the fallback below).
//
// A timer of the Go runtime cannot do this. A guest call compiled without
// cancellation checks runs machine code the Go scheduler cannot preempt,
// and the next garbage collection waits for it to stop, forever: every
// goroutine, timers included, then stands still. The kernel's timer
// sends its signal whatever the runtime does, and the runtime's handler
// for a SIGTERM nobody asked for ends the process from inside the
// handler, without the scheduler. So a process that arms it must not
// listen for SIGTERM.
func ArmWatchdog(d time.Duration, onFail func()) (disarm func()) {
	ev := sigevent{signo: int32(syscall.SIGTERM)}
	var id int32
	if _, _, e := syscall.RawSyscall(syscall.SYS_TIMER_CREATE, clockMonotonic, uintptr(unsafe.Pointer(&ev)), uintptr(unsafe.Pointer(&id))); e != 0 {
		return inRuntime(d, onFail)
	}
	spec := itimerspec{value: syscall.NsecToTimespec(d.Nanoseconds())}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_TIMER_SETTIME, uintptr(id), 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0); e != 0 {
		syscall.RawSyscall(syscall.SYS_TIMER_DELETE, uintptr(id), 0, 0)
		return inRuntime(d, onFail)
	}
	return func() { syscall.RawSyscall(syscall.SYS_TIMER_DELETE, uintptr(id), 0, 0) }
}

package daemon

import (
	"errors"
	"runtime/debug"
	"sync"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hookproto"
)

// What one request may declare, field by field (hookproto.Request). A
// message of another shape is refused at its header or at the length
// that breaks the bound, before anything is allocated for it, so one
// connection (which carries one request at a time) holds at most their
// sum, about MaxField + 4 MiB.
var requestShape = []int{
	hookproto.FieldBuild:     1 << 10,
	hookproto.FieldHarness:   1 << 10,
	hookproto.FieldEvent:     1 << 10,
	hookproto.FieldRequestID: 1 << 10,
	hookproto.FieldDeadline:  32,
	hookproto.FieldLate:      8,
	hookproto.FieldEnviron:   maxEnviron,
	hookproto.FieldPayload:   hookproto.MaxField,
}

// maxEnviron bounds the environment a client sends: Linux gives a new
// process 2 MiB of arguments and environment by default.
const maxEnviron = 4 << 20

// Bytes in flight across every connection: fields of 64 KiB or more
// (payloads) share LargeInFlight, smaller ones SmallInFlight, so a flood
// of large fields never keeps a normal hook (a few KiB) out. A request
// holds its bytes until its hook is decided. Deciding a payload takes
// a few times its size (a 128 MiB one took the daemon to 413 MB), so the
// largest payload is decided alone: with room for a 64 MiB one beside
// it, a flood of both took the daemon to 589 MB.
const (
	LargeInFlight = hookproto.MaxField + 4<<20
	SmallInFlight = 32 << 20
	largeField    = 64 << 10
)

// admitWait is how long a field waits for room before its request is
// refused; the client then decides in-process, as with no daemon.
const admitWait = time.Second

// trimAfter: releasing at least this much gives the daemon's free memory
// back to the system, once nothing large is in flight.
const trimAfter = 16 << 20

// errBusy refuses a request whose bytes found no room in time.
var errBusy = errors.New("daemon: too many bytes in flight; decide in-process")

// errMismatch stops reading a request of another build: its payload is
// not read at all.
var errMismatch = errors.New("daemon: another build")

// budget is a semaphore on bytes: acquire waits for room.
type budget struct {
	mu    sync.Mutex
	used  int64
	limit int64
	freed chan struct{} // closed (and replaced) whenever bytes are released
}

func newBudget(limit int64) *budget { return &budget{limit: limit, freed: make(chan struct{})} }

// acquire takes n bytes, waiting until the deadline for room.
func (b *budget) acquire(n int64, until time.Time) bool {
	for {
		b.mu.Lock()
		if b.used+n <= b.limit {
			b.used += n
			b.mu.Unlock()
			return true
		}
		freed := b.freed
		b.mu.Unlock()
		wait := time.Until(until)
		if wait <= 0 {
			return false
		}
		t := time.NewTimer(wait)
		select {
		case <-freed:
			t.Stop()
		case <-t.C:
		}
	}
}

func (b *budget) release(n int64) (left int64) {
	if n == 0 {
		return -1
	}
	b.mu.Lock()
	b.used -= n
	left = b.used
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
	return left
}

// memory is the daemon's two budgets.
type memory struct {
	large, small *budget
	trimming     sync.Mutex
}

func newMemory(large int64) *memory {
	return &memory{large: newBudget(large), small: newBudget(SmallInFlight)}
}

// lease is what one request was granted; release gives it back once.
type lease struct {
	m            *memory
	large, small int64
	once         sync.Once
}

func (m *memory) lease() *lease { return &lease{m: m} }

// admit is the request's hookproto.Admit: the build id is checked before
// anything past it is read, and each field's bytes are granted before it
// is allocated.
func (l *lease) admit(buildID string) hookproto.Admit {
	return func(i, n int, got [][]byte) error {
		if i == hookproto.FieldHarness && string(got[hookproto.FieldBuild]) != buildID {
			return errMismatch
		}
		until := time.Now().Add(admitWait)
		if n >= largeField {
			if !l.m.large.acquire(int64(n), until) {
				return errBusy
			}
			l.large += int64(n)
			return nil
		}
		if !l.m.small.acquire(int64(n), until) {
			return errBusy
		}
		l.small += int64(n)
		return nil
	}
}

// release gives the request's bytes back. After a large request, with
// nothing large in flight and no guest call running, the daemon's free
// memory goes back to the system: a flood of big frames left 1.1 GB
// resident after its connections closed. (A guest call cannot be
// stopped for the collection FreeOSMemory makes: see holdCollector.)
func (l *lease) release() {
	l.once.Do(func() {
		l.m.small.release(l.small)
		left := l.m.large.release(l.large)
		if l.large < trimAfter || left != 0 || !l.m.trimming.TryLock() {
			return
		}
		defer l.m.trimming.Unlock()
		if collectorHeld() {
			return
		}
		debug.FreeOSMemory()
	})
}

package runner

import "sync/atomic"

// memoryWatch records the size of an instance's largest linear memory
// (its guest heap; the Extism kernel's own is small), for
// Runner.MemoryBytes.
type memoryWatch struct{ n atomic.Int64 }

func (m *memoryWatch) grew(size uint64) {
	if s := int64(size); s > m.n.Load() {
		m.n.Store(s)
	}
}

func (m *memoryWatch) bytes() int64 {
	if m == nil {
		return 0
	}
	return m.n.Load()
}

//go:build linux || darwin

package runner

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// newAllocator backs each guest memory with its own anonymous mapping of
// the memory's maximum size. The kernel hands out pages as the guest
// first touches them, so the reservation costs nothing, and growing never
// copies: wazero's default memory is a Go slice that, to grow, is copied
// whole into a bigger one, which made a guest deciding a 4 MiB payload
// spend most of its time in copies of its own heap (time per MiB grew
// with the size). Closing the instance unmaps the memory, so a replaced
// instance gives its pages back to the system at once.
func newAllocator(w *memoryWatch) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(cap, max uint64) experimental.LinearMemory {
		return &mappedMemory{max: max, watch: w}
	})
}

type mappedMemory struct {
	buf   []byte
	max   uint64
	watch *memoryWatch
}

// Reallocate grows the memory to size bytes in place; nil (the guest sees
// memory.grow fail) when the mapping cannot be made.
func (m *mappedMemory) Reallocate(size uint64) []byte {
	if m.buf == nil {
		if m.max == 0 {
			return nil
		}
		b, err := syscall.Mmap(-1, 0, int(m.max), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
		if err != nil {
			return nil
		}
		hugePages(b)
		m.buf = b
	}
	if size > uint64(len(m.buf)) {
		return nil
	}
	m.watch.grew(size)
	return m.buf[:size]
}

// Free unmaps the memory.
func (m *mappedMemory) Free() {
	if m.buf != nil {
		syscall.Munmap(m.buf)
		m.buf = nil
	}
}

package platform

import (
	"syscall"
	"unsafe"
)

// advise asks for transparent huge pages (the "madvise" setting most
// distributions ship) on the whole 2 MiB pages inside b. Where the
// kernel says no, nothing changes.
func advise(b []byte) {
	const huge = 2 << 20
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start + huge - 1) &^ (huge - 1)
	hi := (start + uintptr(len(b))) &^ (huge - 1)
	if hi <= lo {
		return
	}
	const madvHugepage = 14 // MADV_HUGEPAGE
	syscall.Madvise(b[lo-start:hi-start], madvHugepage)
}

package store

import (
	_ "unsafe" // go:linkname

	"golang.org/x/sys/windows"
)

// SQLite's memory (go-sqlite3's wrapper) is reserved as one VirtualAlloc2
// placeholder, which it later splits and maps the WAL's shared-memory
// file into. Windows has had placeholders since 10 1803, and the wrapper
// falls back to plain Go memory where the three functions are missing.
// Wine 8.0 exports them but refuses placeholders ("invalid parameter"),
// and the wrapper then panics on every open, so nothing could ever be
// stored or searched there. placeholders tries one, split and committed
// as the wrapper does; where that fails the wrapper is shown a missing
// VirtualAlloc2, so it takes its fallback, and the store keeps a rollback
// journal instead of a WAL, which needs the mapped shared memory. The
// linker does not check a go:linkname target: should a go-sqlite3 upgrade
// rename the variable, this would silently do nothing, and the Wine smoke
// run of make test (search must find the hooked events) fails.
//
//go:linkname wrapperVirtualAlloc2 github.com/ncruces/go-sqlite3/internal/sqlite3_wrap.procVirtualAlloc2
var wrapperVirtualAlloc2 *windows.LazyProc

var sharedMemory = placeholders()

func init() {
	if !sharedMemory {
		wrapperVirtualAlloc2 = windows.NewLazySystemDLL("kernelbase.dll").NewProc("ctxhook-no-placeholders")
	}
}

const (
	memPreservePlaceholder = 0x00000002
	memReplacePlaceholder  = 0x00004000
	memReservePlaceholder  = 0x00040000
)

// placeholders reports whether VirtualAlloc2 placeholders work here: one
// of two pages reserved, split, and its first part committed.
func placeholders() bool {
	va2 := windows.NewLazySystemDLL("kernelbase.dll").NewProc("VirtualAlloc2")
	if va2.Find() != nil {
		return false // the wrapper finds it missing too, and falls back
	}
	const page = 64 << 10
	alloc := func(addr, size uintptr, typ, protect uint32) uintptr {
		r, _, _ := va2.Call(uintptr(windows.CurrentProcess()), addr, size, uintptr(typ), uintptr(protect), 0, 0)
		return r
	}
	base := alloc(0, 2*page, windows.MEM_RESERVE|memReservePlaceholder, windows.PAGE_NOACCESS)
	if base == 0 {
		return false
	}
	ok := windows.VirtualFree(base, page, windows.MEM_RELEASE|memPreservePlaceholder) == nil
	if ok {
		ok = alloc(base, page, windows.MEM_COMMIT|windows.MEM_RESERVE|memReplacePlaceholder, windows.PAGE_READWRITE) != 0
		windows.VirtualFree(base, 0, windows.MEM_RELEASE)
		windows.VirtualFree(base+page, 0, windows.MEM_RELEASE)
	} else {
		windows.VirtualFree(base, 0, windows.MEM_RELEASE)
	}
	return ok
}

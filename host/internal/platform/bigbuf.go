// Large buffers. BigBuffer allocates the large byte buffers a payload passes
// through (a wire field, the plugin's output) for being filled, not
// cleared: a 64 MiB payload is copied several times on its way, and on a
// virtual machine every first touch of a 4 KiB page cost about 10 µs
// here (2.7 ms per MiB), more than the copy itself.

package platform

import (
	"strings"
	"unsafe"
)

// hugeMin: buffers this large are also offered huge pages (advise).
const hugeMin = 4 << 20

// BigBuffer returns n bytes of memory that may hold anything: every byte must
// be written before it is read. strings.Builder allocates without
// clearing; a buffer of 4 MiB or more is also put in 2 MiB pages where
// the system allows, so that filling it costs one fault per 2 MiB.
func BigBuffer(n int) []byte {
	if n <= 0 {
		return nil
	}
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte(0)
	b := unsafe.Slice(unsafe.StringData(sb.String()), n)
	if n >= hugeMin {
		advise(b)
	}
	return b
}

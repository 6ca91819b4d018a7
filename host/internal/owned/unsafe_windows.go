package owned

import "unsafe"

// unsafePointer: an ACE's SID starts at its SidStart field.
func unsafePointer(p *uint32) unsafe.Pointer { return unsafe.Pointer(p) }

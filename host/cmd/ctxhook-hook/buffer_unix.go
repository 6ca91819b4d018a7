//go:build linux || darwin

package main

import "syscall"

// payloadBuffer maps n bytes for the payload: reserved, not used, until
// read into (and then in huge pages where Linux allows: hugePages).
func payloadBuffer(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
	if err != nil {
		return nil
	}
	hugePages(b)
	return b
}

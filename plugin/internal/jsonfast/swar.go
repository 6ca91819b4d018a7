package jsonfast

import (
	"encoding/binary"
	"unsafe"
)

// Eight bytes at a time: inside plugin.wasm a byte-at-a-time loop over a
// 10 MiB text block costs tens of milliseconds per pass, and a large
// response is scanned a few times (validated, split, decoded, written
// back). These tests find the first byte of a word that needs a closer
// look, with 64-bit arithmetic the wasm compiler keeps as is.
const (
	lo7 = 0x0101010101010101
	hi  = 0x8080808080808080
)

// load64 reads the 8 bytes at b[i:i+8] (the caller checked they are
// there) as one little-endian word. Through a pointer the compiler emits
// one 64-bit load; binary.LittleEndian's byte-wise form stays eight loads
// and fourteen shifts inside wasm, which made the word loop slower than a
// byte loop there. Every GOARCH ctxhook builds for is little-endian.
func load64(b []byte, i int) uint64 {
	return *(*uint64)(unsafe.Pointer(unsafe.SliceData(b[i : i+8])))
}

var _ = binary.LittleEndian

// store64 writes w at b[i:i+8] (the caller checked there is room).
func store64(b []byte, i int, w uint64) {
	*(*uint64)(unsafe.Pointer(unsafe.SliceData(b[i : i+8]))) = w
}

// byteMask has the high bit of each byte of w equal to c set (exact for
// the lowest such byte; a higher one may be flagged wrongly only after a
// real one).
func byteMask(w uint64, c byte) uint64 {
	v := w ^ (lo7 * uint64(c))
	return (v - lo7) &^ v & hi
}

// specialMask flags the bytes a JSON string scanner must stop at: a
// quote, a backslash, a control byte or a non-ASCII one (exact for the
// lowest).
func specialMask(w uint64) uint64 {
	quote := w ^ (lo7 * '"')
	slash := w ^ (lo7 * '\\')
	return ((quote-lo7)&^quote | (slash-lo7)&^slash | (w-lo7*0x20)&^w | w) & hi
}

// special reports whether any byte of w is a quote, a backslash, a
// control byte (< 0x20) or non-ASCII (>= 0x80): the bytes a JSON string
// scanner must stop at.
func special(w uint64) bool {
	quote := w ^ (lo7 * '"')
	slash := w ^ (lo7 * '\\')
	return ((quote-lo7)&^quote|(slash-lo7)&^slash|(w-lo7*0x20)|w)&hi != 0
}

// plainRun returns how many bytes from b[i] on are plain (no quote,
// backslash, control or non-ASCII byte), in whole words, then bytes.
func plainRun(b []byte, i int) int {
	start := i
	for i+8 <= len(b) && !special(load64(b, i)) {
		i += 8
	}
	for i < len(b) {
		c := b[i]
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
		i++
	}
	return i - start
}

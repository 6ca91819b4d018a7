//go:build !linux

package platform

// advise: huge pages are asked for on Linux only (macOS gives a large
// anonymous mapping superpages on its own where it can).
func advise([]byte) {}

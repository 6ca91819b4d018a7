//go:build !linux

package hook

// background does nothing where a thread's priority cannot be set alone.
func background() {}

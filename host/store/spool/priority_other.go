//go:build !linux

package spool

// background does nothing where a thread's priority cannot be set alone.
func background() {}

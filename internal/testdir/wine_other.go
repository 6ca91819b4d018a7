//go:build !windows

package testdir

// UnderWine is false off Windows.
func UnderWine() bool { return false }

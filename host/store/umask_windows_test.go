package store

import "testing"

// Windows has no umask: files get the directory's inherited ACL.
func syscallUmask(m int) int { return 0 }

// unixModes skips a test of Unix file modes: on Windows the store's
// directory gets an owner-only DACL instead, tested in package owned.
func unixModes(t testing.TB) {
	t.Skip("Unix file modes; Windows' owner-only DACL is tested in package owned")
}

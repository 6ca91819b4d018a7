//go:build !linux && !darwin

package runner

import "github.com/tetratelabs/wazero/experimental"

// newAllocator: wazero's default memory elsewhere (it copies when it
// grows; see memory_unix.go).
func newAllocator(*memoryWatch) experimental.MemoryAllocator { return nil }

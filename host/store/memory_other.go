//go:build !windows

package store

// sharedMemory: the WAL's shared memory can be mapped (see
// memory_windows.go for where it cannot).
const sharedMemory = true

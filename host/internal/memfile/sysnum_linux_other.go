//go:build linux && !amd64 && !arm64

package memfile

const sysMemfdCreate = 0

//go:build linux && !amd64 && !arm64

package platform

const sysMemfdCreate = 0

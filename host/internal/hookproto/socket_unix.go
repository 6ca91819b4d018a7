//go:build unix

package hookproto

import (
	"os"
	"syscall"
)

// SocketIsMine reports whether sock is a Unix socket of this user's: a
// client never hands a payload to a socket someone else planted.
func SocketIsMine(sock string) bool {
	var st syscall.Stat_t
	return syscall.Lstat(sock, &st) == nil && int(st.Uid) == os.Getuid() && st.Mode&syscall.S_IFMT == syscall.S_IFSOCK
}

//go:build linux || darwin

package daemon

import (
	"net"

	"github.com/ctxhook/ctxhook/host/internal/platform"
)

// sameUser checks that the client's process runs as this user (its
// peer credentials: platform.PeerIsUser).
func sameUser(c net.Conn) bool {
	conn, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := conn.SyscallConn()
	if err != nil {
		return false
	}
	return platform.PeerIsUser(raw)
}

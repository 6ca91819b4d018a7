package daemon

import (
	"net"
	"os"
	"syscall"
)

// sameUser checks the peer's uid with SO_PEERCRED.
func sameUser(c net.Conn) bool {
	conn, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := conn.SyscallConn()
	if err != nil {
		return false
	}
	var cred *syscall.Ucred
	var cerr error
	raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	})
	return cerr == nil && cred != nil && int(cred.Uid) == os.Getuid()
}

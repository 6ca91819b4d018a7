package daemon

import (
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// sameUser checks the peer's uid with LOCAL_PEERCRED (macOS's peer
// credentials: the effective uid of the process that connected).
func sameUser(c net.Conn) bool {
	conn, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := conn.SyscallConn()
	if err != nil {
		return false
	}
	var cred *unix.Xucred
	var cerr error
	raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	})
	return cerr == nil && cred != nil && int(cred.Uid) == os.Getuid()
}

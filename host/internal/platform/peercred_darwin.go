package platform

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// PeerIsUser reports whether the process at the other end of a Unix
// socket (raw, its SyscallConn) runs as this user; it checks the peer's uid with LOCAL_PEERCRED (macOS's peer
// credentials: the effective uid of the process that connected).
func PeerIsUser(raw syscall.RawConn) bool {
	var cred *unix.Xucred
	var cerr error
	raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	})
	return cerr == nil && cred != nil && int(cred.Uid) == os.Getuid()
}

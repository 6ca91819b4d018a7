package platform

import (
	"os"
	"syscall"
)

// PeerIsUser reports whether the process at the other end of a Unix
// socket (raw, its SyscallConn) runs as this user; it checks the peer's uid with SO_PEERCRED.
func PeerIsUser(raw syscall.RawConn) bool {
	var cred *syscall.Ucred
	var cerr error
	raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	})
	return cerr == nil && cred != nil && int(cred.Uid) == os.Getuid()
}

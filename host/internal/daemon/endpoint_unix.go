//go:build unix

package daemon

import (
	"net"
	"syscall"
)

// listenPrivate listens on a Unix socket only its owner may connect to
// (created 0600 under the umask, not chmod-ed after, so there is no
// moment another user could connect).
func listenPrivate(sock string) (*net.UnixListener, error) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	return net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
}

// Supported says whether this platform has a daemon endpoint: it has.
func Supported() error { return nil }

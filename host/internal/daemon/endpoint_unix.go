//go:build unix

package daemon

import (
	"net"
	"os"
	"syscall"
	"time"
)

// listenPrivate listens on a Unix socket only its owner may connect to
// (created 0600 under the umask, not chmod-ed after, so there is no
// moment another user could connect). It listens under a name of its own
// first and then renames the socket into place: a socket file appears at
// bind, before listen, and a client that connected in between was
// refused. The caller removes the socket when it stops (the rename leaves
// the listener's own unlink-on-close pointing at the old name).
func listenPrivate(sock string) (*net.UnixListener, error) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	tmp := sock + ".new" // the daemon's lock makes it this process's alone
	os.Remove(tmp)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, err
	}
	ln.SetUnlinkOnClose(false)
	if err := os.Rename(tmp, sock); err != nil {
		ln.Close()
		os.Remove(tmp)
		return nil, err
	}
	return ln, nil
}

// dialEndpoint connects to the daemon's socket sock within wait.
func dialEndpoint(sock string, wait time.Duration) (net.Conn, error) {
	return net.DialTimeout("unix", sock, wait)
}

// Supported says whether this platform has a daemon endpoint: it has.
func Supported() error { return nil }

package daemon

import (
	"net"
	"os"
	"sync"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/winpipe"
)

// userSID is this process's user, looked up once.
var userSID = sync.OnceValues(winpipe.UserSID)

// listenPrivate serves the named pipe of sock (winpipe.Name), whose
// security descriptor admits only this user's SID. An empty file at sock
// (0600, in the user's own daemon directory) marks the daemon as
// serving: the client looks for it before it opens the pipe, and the
// daemon exits when it is gone, as it does when its Unix socket is gone.
func listenPrivate(sock string) (net.Listener, error) {
	sid, err := userSID()
	if err != nil {
		return nil, err
	}
	ln, err := winpipe.Listen(winpipe.Name(sock, sid), sid)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// sameUser checks that the client's process runs as this user: the
// pipe's descriptor should keep everyone else out, and this holds where
// it does not (Wine keeps no DACLs).
func sameUser(c net.Conn) bool {
	pc, ok := c.(*winpipe.Conn)
	sid, err := userSID()
	return ok && err == nil && pc.ClientIsMine(sid)
}

// dialEndpoint connects to the daemon's pipe within wait, and only to a
// server that runs as this user.
func dialEndpoint(sock string, wait time.Duration) (net.Conn, error) {
	sid, err := userSID()
	if err != nil {
		return nil, err
	}
	c, err := winpipe.Dial(winpipe.Name(sock, sid), sid, time.Now().Add(wait))
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return c, nil
}

// Supported says whether this platform has a daemon endpoint: it has
// (a named pipe).
func Supported() error { return nil }

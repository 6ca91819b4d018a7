package daemon

import (
	"errors"
	"net"
)

// ErrNoEndpoint: Windows has no daemon endpoint yet (a named pipe whose
// security descriptor admits only the user's SID is the plan): hooks and
// proxies decide in-process there, and doctor says so.
var ErrNoEndpoint = errors.New("daemon: no daemon on Windows yet: hooks and proxies decide in-process")

func listenPrivate(string) (*net.UnixListener, error) { return nil, ErrNoEndpoint }

func sameUser(*net.UnixConn) bool { return false }

// Supported says whether this platform has a daemon endpoint: not yet.
func Supported() error { return ErrNoEndpoint }

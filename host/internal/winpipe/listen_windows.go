package winpipe

import (
	"errors"
	"net"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// bufSize is each direction's buffer in the pipe: a hook's frames pass
// in a few writes.
const bufSize = 64 << 10

// Listener serves a pipe: each Accept hands out the connected instance
// and makes the next.
type Listener struct {
	name   string
	sa     *windows.SecurityAttributes
	mu     sync.Mutex
	next   windows.Handle
	closed bool
	stop   windows.Handle // an event set by Close
}

// Listen creates the first instance of the pipe name, with the security
// descriptor Descriptor(sid). It fails if the name exists already
// (FILE_FLAG_FIRST_PIPE_INSTANCE): the server never shares a pipe with
// instances someone else made.
func Listen(name string, sid *windows.SID) (*Listener, error) {
	sd, err := Descriptor(sid)
	if err != nil {
		return nil, err
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	stop, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return nil, err
	}
	l := &Listener{name: name, sa: sa, stop: stop}
	if l.next, err = l.instance(true); err != nil {
		windows.CloseHandle(stop)
		return nil, err
	}
	return l, nil
}

// instance makes one instance of the pipe: bytes both ways, local
// clients only.
func (l *Listener) instance(first bool) (windows.Handle, error) {
	u, err := windows.UTF16PtrFromString(l.name)
	if err != nil {
		return windows.InvalidHandle, err
	}
	flags := uint32(windows.PIPE_ACCESS_DUPLEX | windows.FILE_FLAG_OVERLAPPED)
	if first {
		flags |= windows.FILE_FLAG_FIRST_PIPE_INSTANCE
	}
	mode := uint32(windows.PIPE_TYPE_BYTE | windows.PIPE_READMODE_BYTE | windows.PIPE_WAIT | windows.PIPE_REJECT_REMOTE_CLIENTS)
	h, err := windows.CreateNamedPipe(u, flags, mode, windows.PIPE_UNLIMITED_INSTANCES, bufSize, bufSize, 0, l.sa)
	runtime.KeepAlive(l.sa)
	return h, err
}

// Accept waits for a client on the current instance, then makes the next.
func (l *Listener) Accept() (net.Conn, error) {
	l.mu.Lock()
	h, closed := l.next, l.closed
	l.mu.Unlock()
	if closed {
		return nil, net.ErrClosed
	}
	if err := l.connectLive(h); err != nil {
		return nil, err
	}
	next, err := l.instance(false)
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		if err == nil {
			windows.CloseHandle(next)
		}
		windows.CloseHandle(h)
		return nil, net.ErrClosed
	}
	l.next = next
	l.mu.Unlock()
	if err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	return &Conn{h: h, name: l.name}, nil
}

// connectLive is connect past clients that left first: one that opened
// the instance and closed it before the wait began leaves it unusable
// (ERROR_NO_DATA), which is no reason to stop serving. The instance is
// reset and waited on again.
func (l *Listener) connectLive(h windows.Handle) error {
	for {
		err := l.connect(h)
		if !errors.Is(err, windows.ERROR_NO_DATA) && !errors.Is(err, windows.ERROR_BROKEN_PIPE) {
			return err
		}
		windows.DisconnectNamedPipe(h)
	}
}

// connect waits for a client on h, or for Close.
func (l *Listener) connect(h windows.Handle) error {
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(ev)
	ov := &windows.Overlapped{HEvent: ev}
	err = windows.ConnectNamedPipe(h, ov)
	switch err {
	case nil, windows.ERROR_PIPE_CONNECTED:
		return nil
	case windows.ERROR_IO_PENDING:
	default:
		return err
	}
	r, err := windows.WaitForMultipleObjects([]windows.Handle{ev, l.stop}, false, windows.INFINITE)
	if err != nil || r != windows.WAIT_OBJECT_0 {
		windows.CancelIoEx(h, ov)
		var n uint32
		windows.GetOverlappedResult(h, ov, &n, true)
		runtime.KeepAlive(ov)
		return net.ErrClosed
	}
	var n uint32
	err = windows.GetOverlappedResult(h, ov, &n, true)
	runtime.KeepAlive(ov)
	return err
}

// Close stops Accept and removes the pipe's waiting instance;
// connections already accepted stay open.
func (l *Listener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	windows.SetEvent(l.stop)
	return windows.CloseHandle(l.next)
}

// Addr is the pipe's name.
func (l *Listener) Addr() net.Addr { return Addr(l.name) }

package winpipe

import (
	"errors"
	"hash/fnv"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/windows"
)

// Name is the pipe for an endpoint path (the daemon's socket path on
// Unix): per user (the SID in the name) and per data directory (a hash
// of the path), so two CTXHOOK_HOMEs have daemons of their own.
func Name(endpoint string, sid *windows.SID) string {
	h := fnv.New64a()
	h.Write([]byte(strings.ToLower(endpoint)))
	return `\\.\pipe\ctxhook-` + sid.String() + "-" + strconv.FormatUint(h.Sum64(), 16)
}

// ErrNotMine: the process at the other end of the pipe runs as another
// user (or cannot be asked).
var ErrNotMine = errors.New("winpipe: the other end is not this user's")

// Conn is one end of a connected pipe. Read and Write wait at most until
// the deadline set before them; Close ends both at once.
type Conn struct {
	h      windows.Handle
	name   string
	closed atomic.Bool
	// inflight is held shared by each operation on h and exclusively by
	// Close around CloseHandle: a handle value is reused by Windows once
	// closed, so no ReadFile or WriteFile may be issued on h after it.
	inflight sync.RWMutex
	mu       sync.Mutex
	rd, wd   time.Time
}

func (c *Conn) Read(b []byte) (int, error) {
	for {
		c.mu.Lock()
		d := c.rd
		c.mu.Unlock()
		n, err := c.io(b, d, true)
		if n == 0 && err == nil && len(b) > 0 {
			continue // a zero-length write at the other end
		}
		return n, err
	}
}

func (c *Conn) Write(b []byte) (int, error) {
	c.mu.Lock()
	d := c.wd
	c.mu.Unlock()
	done := 0
	for done < len(b) {
		n, err := c.io(b[done:], d, false)
		done += n
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// io runs one overlapped ReadFile or WriteFile and waits for it until
// the deadline d (none when zero); past it, the operation is cancelled.
func (c *Conn) io(b []byte, d time.Time, read bool) (int, error) {
	c.inflight.RLock()
	defer c.inflight.RUnlock()
	if c.closed.Load() {
		return 0, net.ErrClosed
	}
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return 0, err
	}
	defer windows.CloseHandle(ev)
	ov := &windows.Overlapped{HEvent: ev}
	var n uint32
	if read {
		err = windows.ReadFile(c.h, b, &n, ov)
	} else {
		err = windows.WriteFile(c.h, b, &n, ov)
	}
	if err == windows.ERROR_IO_PENDING {
		if c.closed.Load() {
			// Close came between the check above and the call, after
			// its own cancel: this operation cancels itself.
			windows.CancelIoEx(c.h, ov)
		}
		err = wait(c.h, ov, d, &n)
	}
	runtime.KeepAlive(ov)
	runtime.KeepAlive(b)
	return int(n), c.fault(err, read)
}

// wait waits for ov until d; past it, it cancels the operation and
// reports os.ErrDeadlineExceeded (with what was done before the cancel).
func wait(h windows.Handle, ov *windows.Overlapped, d time.Time, n *uint32) error {
	ms := uint32(windows.INFINITE)
	if !d.IsZero() {
		left := time.Until(d)
		if left <= 0 {
			left = 0
		}
		ms = uint32(min(left.Milliseconds(), int64(windows.INFINITE-1)))
	}
	r, err := windows.WaitForSingleObject(ov.HEvent, ms)
	if err != nil {
		return err
	}
	if r == uint32(windows.WAIT_TIMEOUT) {
		windows.CancelIoEx(h, ov)
		if err := windows.GetOverlappedResult(h, ov, n, true); err != nil || *n == 0 {
			return os.ErrDeadlineExceeded
		}
		return nil
	}
	return windows.GetOverlappedResult(h, ov, n, true)
}

// fault maps the system's errors to the ones Go's readers expect: the
// other end gone is io.EOF for a read, and an operation cut by Close is
// net.ErrClosed.
func (c *Conn) fault(err error, read bool) error {
	switch {
	case err == nil:
		return nil
	case c.closed.Load():
		return net.ErrClosed
	case read && (err == windows.ERROR_BROKEN_PIPE || err == windows.ERROR_PIPE_NOT_CONNECTED || err == windows.ERROR_NO_DATA):
		return io.EOF
	}
	return err
}

// Close cancels what is pending on the pipe and closes it.
func (c *Conn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	windows.CancelIoEx(c.h, nil)
	c.inflight.Lock() // every pending operation has ended
	defer c.inflight.Unlock()
	return windows.CloseHandle(c.h)
}

func (c *Conn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	c.rd, c.wd = t, t
	c.mu.Unlock()
	return nil
}

func (c *Conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.rd = t
	c.mu.Unlock()
	return nil
}

func (c *Conn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	c.wd = t
	c.mu.Unlock()
	return nil
}

// Addr is a pipe's name as a net.Addr.
type Addr string

func (Addr) Network() string  { return "pipe" }
func (a Addr) String() string { return string(a) }

func (c *Conn) LocalAddr() net.Addr  { return Addr(c.name) }
func (c *Conn) RemoteAddr() net.Addr { return Addr(c.name) }

// peerIsMine reports whether the process with id pid runs as sid.
func peerIsMine(pid uint32, sid *windows.SID) bool {
	p, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return false
	}
	defer windows.CloseHandle(p)
	var tok windows.Token
	if windows.OpenProcessToken(p, windows.TOKEN_QUERY, &tok) != nil {
		return false
	}
	defer tok.Close()
	tu, err := tok.GetTokenUser()
	return err == nil && windows.EqualSid(tu.User.Sid, sid)
}

// ClientIsMine reports whether the client at the server end c runs as sid.
func (c *Conn) ClientIsMine(sid *windows.SID) bool {
	var pid uint32
	return windows.GetNamedPipeClientProcessId(c.h, &pid) == nil && peerIsMine(pid, sid)
}

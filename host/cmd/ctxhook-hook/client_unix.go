//go:build unix

package main

import (
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/platform"
)

// inProcess replaces this process with `ctxhook hook`, its stdin a
// file holding the payload (memfile) already read.
func inProcess(harness, event string, payload []byte) {
	f, err := platform.MemFile(payload)
	if err == nil {
		err = dupStdin(int(f.Fd()))
	}
	if err == nil {
		bin := full()
		err = syscall.Exec(bin, []string{bin, "hook", harness, event}, os.Environ())
	}
	os.Stderr.WriteString("ctxhook: cannot run ctxhook hook (" + err.Error() + "); the agent continues without ctxhook\n")
	os.Exit(0)
}

// sockConn is a connected Unix stream socket, read and written with plain
// system calls until a deadline: before each call the socket's own
// timeouts (SO_SNDTIMEO, SO_RCVTIMEO, which on Linux also bound the
// connect) are set to what is left, so a daemon that takes a big payload
// slowly, or answers slowly, cannot hold the client past it.
type sockConn struct {
	fd    int
	until time.Time
}

func dial(path string, until time.Time) (sockConn, error) {
	fd, err := unixSocket()
	if err != nil {
		return sockConn{fd: -1}, err
	}
	c := sockConn{fd, until}
	if err := c.arm(syscall.SO_SNDTIMEO); err != nil {
		syscall.Close(fd)
		return sockConn{fd: -1}, err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return sockConn{fd: -1}, err
	}
	return c, nil
}

// arm sets the timeout opt to what is left until c.until; past it, it
// fails with os.ErrDeadlineExceeded.
func (c sockConn) arm(opt int) error {
	left := time.Until(c.until)
	if left <= 0 {
		return os.ErrDeadlineExceeded
	}
	tv := syscall.NsecToTimeval(max(left, time.Millisecond).Nanoseconds())
	return syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, opt, &tv)
}

func (c sockConn) Read(b []byte) (int, error) {
	for {
		if err := c.arm(syscall.SO_RCVTIMEO); err != nil {
			return 0, err
		}
		n, err := syscall.Read(c.fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 && len(b) > 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

// writePiece bounds one write system call. The kernel gives each of the
// buffers a Unix socket sends in one call a timeout of its own: a call
// writing 61 MiB to a daemon that read it slowly returned 2.6 s past the
// deadline. Pieces of 256 KiB, each armed with what is left, keep the
// overrun to a few milliseconds.
const writePiece = 256 << 10

func (c sockConn) Write(b []byte) (int, error) {
	done := 0
	for done < len(b) {
		if err := c.arm(syscall.SO_SNDTIMEO); err != nil {
			return done, err
		}
		n, err := syscall.Write(c.fd, b[done:min(len(b), done+writePiece)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return done, err
		}
		done += n
	}
	return done, nil
}

func (c sockConn) Close() error { return syscall.Close(c.fd) }

// daemonPlatform: this system has the daemon, so a daemon the client
// starts is the one that compiles the plugin on a cold start.
const daemonPlatform = true

// compiling reports whether a process holds the compile lock of the
// daemon's build of the plugin (runner.Compiling): it is compiling it.
func compiling(p paths.Paths) bool {
	f, err := os.OpenFile(filepath.Join(p.WasmCache(), "compile-fast.lock"), os.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

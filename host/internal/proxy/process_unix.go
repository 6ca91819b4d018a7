//go:build unix

package proxy

import (
	"io"
	"os"
	"syscall"
)

// groupAttr starts the server in a process group of its own, so that
// nothing it starts outlives the proxy.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// endGroup ends the server's process group: SIGTERM, or SIGKILL.
func endGroup(p *os.Process, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	syscall.Kill(-p.Pid, sig)
}

// nonblocking gives a pipe or socket to the runtime's poller (see
// pollable).
func nonblocking(r io.Reader) io.Reader {
	f, ok := r.(*os.File)
	if !ok {
		return r
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return r
	}
	if err := syscall.SetNonblock(int(f.Fd()), true); err != nil {
		return r
	}
	return os.NewFile(f.Fd(), f.Name())
}

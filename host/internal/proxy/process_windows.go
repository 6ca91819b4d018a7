package proxy

import (
	"io"
	"os"
	"syscall"
)

func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP} // a group of its own
}

// endGroup ends the server (TerminateProcess). Windows has no signal for
// a group; what the server started itself is not reached.
func endGroup(p *os.Process, _ bool) { p.Kill() }

func nonblocking(r io.Reader) io.Reader { return r }

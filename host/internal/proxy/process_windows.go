package proxy

import (
	"io"
	"os"
	"syscall"
)

// createNewProcessGroup (winbase.h): the server gets a group of its own.
const createNewProcessGroup = 0x00000200

func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: createNewProcessGroup}
}

// endGroup ends the server (TerminateProcess). Windows has no signal for
// a group; what the server started itself is not reached.
func endGroup(p *os.Process, _ bool) { p.Kill() }

func nonblocking(r io.Reader) io.Reader { return r }

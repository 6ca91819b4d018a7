package detach

import (
	"os"
	"syscall"
)

// Windows process creation flags (winbase.h): no console of the
// harness's, and a process group of its own (a Ctrl+C to the harness's
// group does not reach it).
const (
	createNewProcessGroup = 0x00000200
	detachedProcess       = 0x00000008
)

func sysAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: createNewProcessGroup | detachedProcess, HideWindow: true}
}

// rootDir is the system drive's root: the process must not keep the
// project directory busy (Windows refuses to delete a directory in use).
func rootDir() string {
	if d := os.Getenv("SystemDrive"); d != "" {
		return d + `\`
	}
	return `C:\`
}

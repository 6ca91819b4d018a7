package platform

import (
	"os"
	"syscall"
)

// detachedProcess (winbase.h; syscall has no name for it): no console of
// the harness's. With a process group of its own, a Ctrl+C to the
// harness's group does not reach it.
const detachedProcess = 0x00000008

func sysAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess, HideWindow: true}
}

// rootDir is the system drive's root: the process must not keep the
// project directory busy (Windows refuses to delete a directory in use).
func rootDir() string {
	if d := os.Getenv("SystemDrive"); d != "" {
		return d + `\`
	}
	return `C:\`
}

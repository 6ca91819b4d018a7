package platform

import "os"

// terminate ends pid (TerminateProcess).
func terminate(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

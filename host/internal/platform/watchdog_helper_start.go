package platform

import (
	"os"
	"os/exec"
	"strconv"
	"sync"
)

var helper struct {
	sync.Mutex
	once sync.Once
	w    *os.File
	seq  int64
}

// helperPipe starts the helper (this same binary, which runs ServeWatchdog when
// it finds EnvWatchdogParent) once, and returns the pipe to it.
func helperPipe() *os.File {
	helper.once.Do(func() {
		self, err := os.Executable()
		if err != nil {
			return
		}
		r, w, err := os.Pipe()
		if err != nil {
			return
		}
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), EnvWatchdogParent+"="+strconv.Itoa(os.Getpid()))
		cmd.Stdin = r
		if err := cmd.Start(); err != nil {
			r.Close()
			w.Close()
			return
		}
		r.Close()
		go cmd.Wait() // reaped when it exits
		helper.w = w
	})
	return helper.w
}

package platform

import (
	"os"
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
// WatchdogHelper says it was started as the helper) once, and returns the
// pipe to it.
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
		// os.StartProcess, not os/exec: every binary that links this
		// package (the hook client among them) would initialise os/exec
		// and context for a helper it almost never starts.
		null, err := os.Open(os.DevNull)
		if err != nil {
			r.Close()
			w.Close()
			return
		}
		p, err := os.StartProcess(self, []string{self, HelperArg}, &os.ProcAttr{
			Env:   append(os.Environ(), EnvWatchdogParent+"="+strconv.Itoa(os.Getpid())),
			Files: []*os.File{r, null, null},
		})
		r.Close()
		null.Close()
		if err != nil {
			w.Close()
			return
		}
		go p.Wait() // reaped when it exits
		helper.w = w
	})
	return helper.w
}

// Detached processes. StartDetached starts a ctxhook process that outlives its starter: a
// daemon, a hook finished in the background, a writer of the spool. The
// process is in a session of its own, with nothing of the harness's: no
// pipe it would keep open (stdout and stderr /dev/null), and working
// directory / (it must not keep the project directory busy).
//
// It links only os and syscall: the hook client uses it.

package platform

import (
	"os"
)

// StartDetached runs bin (as "ctxhook") with args and environment env, stdin in
// (nil: /dev/null), and leaves it.
func StartDetached(bin string, args, env []string, in *os.File) error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	if in == nil {
		in = null
	}
	proc, err := os.StartProcess(bin, append([]string{"ctxhook"}, args...), &os.ProcAttr{
		Dir:   rootDir(),
		Env:   env,
		Files: []*os.File{in, null, null},
		Sys:   sysAttr(),
	})
	if err != nil {
		return err
	}
	return proc.Release()
}

// Package homeprocs finds the ctxhook processes serving one CTXHOOK_HOME,
// for tests that start daemons and background finishers and must wait
// for them or end them. It reads /proc: elsewhere it finds none.
package homeprocs

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// kill ends pid at once (SIGKILL).
func kill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// each calls fn with the pid, environment and command line of every
// process whose environment sets CTXHOOK_HOME=home.
func each(home string, fn func(pid int, environ, cmdline []byte)) {
	eachWith("CTXHOOK_HOME", home, fn)
}

// eachWith is each for the processes whose environment sets key=value.
func eachWith(key, value string, fn func(pid int, environ, cmdline []byte)) {
	// A whole entry: the environment's first, or one after a NUL.
	inner := []byte("\x00" + key + "=" + value + "\x00")
	first := inner[1:]
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, pe := range procs {
		b, err := os.ReadFile(pe)
		if err != nil || !(bytes.HasPrefix(b, first) || bytes.Contains(b, inner)) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(pe)))
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(pe), "cmdline"))
		fn(pid, b, cmdline)
	}
}

// Finishers counts the background processes finishing hooks for home
// (their environment marks them late: CTXHOOK_HOOK_LATE=1).
func Finishers(home string) int {
	n := 0
	each(home, func(_ int, environ, _ []byte) {
		if bytes.Contains(environ, []byte("\x00CTXHOOK_HOOK_LATE=1")) {
			n++
		}
	})
	return n
}

// Daemons are the pids of the daemons serving home.
func Daemons(home string) []int {
	var pids []int
	each(home, func(pid int, _, cmdline []byte) {
		if bytes.Contains(cmdline, []byte("daemon")) {
			pids = append(pids, pid)
		}
	})
	return pids
}

// KillDaemons SIGKILLs every daemon serving home and says how many.
func KillDaemons(home string) int {
	pids := Daemons(home)
	for _, pid := range pids {
		kill(pid)
	}
	return len(pids)
}

// KillAll SIGKILLs every process serving home.
func KillAll(home string) {
	each(home, func(pid int, _, _ []byte) { kill(pid) })
}

// KillWith SIGKILLs every process whose environment sets key=value (a
// real client's test home as HOME: the client's own background
// processes and the ctxhook daemons its hooks started, which would
// otherwise write into the home while the test removes it) and
// reports how many it found.
func KillWith(key, value string) int {
	n := 0
	eachWith(key, value, func(pid int, _, _ []byte) { kill(pid); n++ })
	return n
}

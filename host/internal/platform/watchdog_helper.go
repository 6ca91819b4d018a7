package platform

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// EnvWatchdogParent names the process a watchdog helper watches (see
// ServeWatchdog). Alone it does nothing: a process is the helper only
// when it was started with HelperArg as its one argument and the pid is
// its parent's (WatchdogHelper), so a stray value in an environment
// cannot turn every ctxhook command into a helper.
const EnvWatchdogParent = "CTXHOOK_WATCHDOG_PARENT"

// HelperArg is the one argument the helper is started with.
const HelperArg = "__ctxhook-watchdog-helper"

// WatchdogHelper says whether this process was started as the watchdog
// helper (args without the program name): HelperArg alone, and
// EnvWatchdogParent naming this process's parent. It returns the pid to
// watch. A value set without that is ignored with one line on stderr
// (the caller runs normally); HelperArg without it is not the helper
// either.
func WatchdogHelper(args []string, getenv func(string) string, stderr io.Writer) (int, bool) {
	v := getenv(EnvWatchdogParent)
	if v == "" {
		return 0, false
	}
	pid, err := strconv.Atoi(v)
	switch {
	case err != nil || pid <= 0:
		fmt.Fprintf(stderr, "ctxhook: ignoring %s=%q: not a pid\n", EnvWatchdogParent, v)
	case len(args) != 1 || args[0] != HelperArg || parentKnown() && pid != os.Getppid():
		fmt.Fprintf(stderr, "ctxhook: ignoring %s: this process was not started as the watchdog helper\n", EnvWatchdogParent)
	default:
		return pid, true
	}
	return 0, false
}

// parentKnown says whether os.Getppid names the parent. Wine's Windows
// reports none (0): there the argument alone marks the helper, as it is
// what a stray environment variable cannot supply.
func parentKnown() bool { return os.Getppid() > 0 }

// ServeWatchdog is the helper's side, on systems without a kernel timer that
// signals a process (timer_create is Linux's; see ArmWatchdog): a small process
// of its own runtime, which the parent's stuck runtime cannot stop. It
// reads "arm <id> <unix-ms>" and "disarm <id>" lines on stdin and ends
// the parent (terminate) when an armed deadline passes; it exits when
// stdin closes (the parent is gone) or once it has ended the parent.
func ServeWatchdog(parent int) {
	lines := make(chan string)
	go readLines(os.Stdin, lines)
	armed := map[string]time.Time{}
	for {
		var wait <-chan time.Time
		if len(armed) > 0 {
			first := time.Time{}
			for _, t := range armed {
				if first.IsZero() || t.Before(first) {
					first = t
				}
			}
			wait = time.After(time.Until(first))
		}
		select {
		case line, ok := <-lines:
			if !ok {
				return
			}
			f := strings.Fields(line)
			switch {
			case len(f) == 3 && f[0] == "arm":
				ms, err := strconv.ParseInt(f[2], 10, 64)
				if err == nil {
					armed[f[1]] = time.UnixMilli(ms)
				}
			case len(f) == 2 && f[0] == "disarm":
				delete(armed, f[1])
			}
		case <-wait:
			for _, t := range armed {
				if !time.Now().Before(t) {
					terminate(parent)
					return
				}
			}
		}
	}
}

// readLines sends each line read from f on lines, and closes lines when
// f ends. It is bufio.Scanner's loop, written out so that every binary
// that links this package (the hook client among them) does not also
// initialise bufio: the helper's lines are a few dozen bytes.
func readLines(f *os.File, lines chan<- string) {
	defer close(lines)
	var pending []byte
	buf := make([]byte, 4096)
	for {
		n, err := f.Read(buf)
		pending = append(pending, buf[:n]...)
		for {
			i := bytes.IndexByte(pending, '\n')
			if i < 0 {
				break
			}
			lines <- string(pending[:i])
			pending = pending[i+1:]
		}
		if len(pending) > 1<<16 { // no line is this long: drop it
			pending = pending[:0]
		}
		if err != nil {
			return
		}
	}
}

// arm is the parent's side: the deadline goes to the helper, started on
// first use; disarm takes it back. ok is false when no helper could be
// started (the caller falls back to a runtime timer).
func armHelper(d time.Duration) (disarm func(), ok bool) {
	w := helperPipe()
	if w == nil {
		return nil, false
	}
	helper.Lock()
	helper.seq++
	id := helper.seq
	_, err := fmt.Fprintf(w, "arm %d %d\n", id, time.Now().Add(d).UnixMilli())
	helper.Unlock()
	if err != nil {
		return nil, false
	}
	return func() {
		helper.Lock()
		fmt.Fprintf(w, "disarm %d\n", id)
		helper.Unlock()
	}, true
}

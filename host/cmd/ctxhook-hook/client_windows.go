package main

import (
	"bytes"
	"errors"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"os"
	"os/exec"
	"time"
)

// sockConn stands for the daemon connection, which Windows does not have
// yet: dial always fails, so every hook runs in-process (`ctxhook doctor`
// says so).
type sockConn struct{}

var errNoDaemon = errors.New("no daemon on Windows: hooks run in-process")

func dial(path string, until time.Time) (sockConn, error) { return sockConn{}, errNoDaemon }
func (sockConn) Read([]byte) (int, error)                 { return 0, errNoDaemon }
func (sockConn) Write([]byte) (int, error)                { return 0, errNoDaemon }
func (sockConn) Close() error                             { return nil }

// inProcess runs `ctxhook hook` with the payload on its stdin and passes
// on its answer and exit status (Windows has no exec to replace this
// process with it).
func inProcess(harness, event string, payload []byte) {
	cmd := exec.Command(full(), "hook", harness, event)
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		os.Exit(ee.ExitCode())
	case err != nil:
		os.Stderr.WriteString("ctxhook: cannot run ctxhook hook (" + err.Error() + "); the agent continues without ctxhook\n")
	}
	os.Exit(0)
}

// daemonPlatform: no daemon here; an in-process hook compiles the plugin.
const daemonPlatform = false

func compiling(paths.Paths) bool { return false }

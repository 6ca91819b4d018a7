package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/winpipe"
)

// sockConn is a connection to the daemon's named pipe (package
// winpipe), every read and write bounded by the hook's deadline. The
// pipe admits only this user, and dial checks that its server runs as
// this user before a payload goes out.
type sockConn struct{ c *winpipe.Conn }

func dial(path string, until time.Time) (sockConn, error) {
	sid, err := winpipe.UserSID()
	if err != nil {
		return sockConn{}, err
	}
	c, err := winpipe.Dial(winpipe.Name(path, sid), sid, until)
	if err != nil {
		return sockConn{}, err
	}
	return sockConn{c}, nil
}

func (s sockConn) Read(b []byte) (int, error)  { return s.c.Read(b) }
func (s sockConn) Write(b []byte) (int, error) { return s.c.Write(b) }
func (s sockConn) Close() error                { return s.c.Close() }

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

// daemonPlatform: the client does not wait for a daemon it started to
// compile the plugin (it cannot see the compile lock here): on a cold
// start the in-process hook compiles it as well.
const daemonPlatform = false

func compiling(paths.Paths) bool { return false }

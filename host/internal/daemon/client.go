package daemon

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hook"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/wire"
)

// ErrUnavailable is returned by Ask when no daemon of this build answers:
// the caller decides in-process instead.
var ErrUnavailable = errors.New("daemon: unavailable")

// Ask sends one request to the daemon for p, as the hook client does,
// and returns its answer: for long-lived hosts that link the whole of
// ctxhook anyway (the proxy). environ is the caller's environment
// (KEY=VALUE), which carries its CTXHOOK_* settings and the secrets to
// redact. wait bounds the whole exchange.
func Ask(p paths.Paths, harness, event string, environ []string, payload []byte, wait time.Duration) (hook.Answer, error) {
	sock := p.Socket()
	// The socket must be this user's: never hand a payload to a socket
	// someone else planted.
	var st syscall.Stat_t
	if syscall.Lstat(sock, &st) != nil || int(st.Uid) != os.Getuid() || st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return hook.Answer{}, ErrUnavailable
	}
	conn, err := net.DialTimeout("unix", sock, wait)
	if err != nil {
		return hook.Answer{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(wait))
	if err := wire.Write(conn, []byte(BuildID()), []byte(harness), []byte(event), []byte(strings.Join(environ, "\x00")), payload); err != nil {
		return hook.Answer{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	ans, err := wire.Read(bufio.NewReaderSize(conn, 64<<10))
	if err != nil || len(ans) < 4 || string(ans[0]) != "ok" {
		return hook.Answer{}, fmt.Errorf("%w: no answer (%v)", ErrUnavailable, err)
	}
	code, err := strconv.Atoi(string(ans[1]))
	if err != nil {
		return hook.Answer{}, fmt.Errorf("%w: bad answer", ErrUnavailable)
	}
	a := hook.Answer{Code: code, Stdout: string(ans[2]), Stderr: string(ans[3])}
	if len(ans) > 4 {
		a.Failed = string(ans[4])
	}
	return a, nil
}

// Spawn starts `ctxhook daemon` detached from the caller (its own session,
// no stdio, working directory /). The daemon's lock makes racing spawners
// harmless: all but one exit at once.
func Spawn(bin string, environ []string) error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	proc, err := os.StartProcess(bin, []string{"ctxhook", "daemon"}, &os.ProcAttr{
		Dir:   "/",
		Env:   environ,
		Files: []*os.File{null, null, null},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return err
	}
	return proc.Release()
}

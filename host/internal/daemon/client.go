package daemon

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/engine"
	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/host/runner"
)

// ErrUnavailable is returned by Ask when no daemon of this build answers:
// the caller decides in-process instead.
var ErrUnavailable = errors.New("daemon: unavailable")

// Client asks the daemon for decisions, for long-lived hosts that link
// the whole of ctxhook anyway (the proxy). It keeps its connections open
// between requests: a decision then costs one round trip, not a connect,
// an accept and a peer check (about a fifth of a proxied call's added
// time). The zero value is not usable; set Paths. Safe for concurrent
// use: each request has a connection of its own.
type Client struct {
	Paths paths.Paths
	mu    sync.Mutex
	idle  []*clientConn
}

type clientConn struct {
	c  net.Conn
	br *bufio.Reader
}

// maxIdle bounds the connections a Client keeps: the proxy decides a
// request and a response at once at most, plus pipelined calls.
const maxIdle = 4

// Ask sends one request and returns the daemon's answer. req.Environ
// is what the plugin reads of the caller's environment
// (hookproto.PluginEnviron: Ask does not choose). req should be named
// (req.ID): a request on a kept connection the daemon had closed is
// sent again on a new one, and its name keeps it from being stored
// twice. wait bounds each exchange.
func (c *Client) Ask(req hookproto.Request, wait time.Duration) (engine.Answer, error) {
	fields := req.Fields(BuildID())
	if cc := c.take(); cc != nil {
		if a, err := cc.ask(fields, wait); err == nil {
			c.put(cc)
			return a, nil
		}
		cc.c.Close() // closed by the daemon (idle, or it went away): once more on a new one
	}
	cc, err := c.dial(wait)
	if err != nil {
		return engine.Answer{}, err
	}
	a, err := cc.ask(fields, wait)
	if err != nil {
		cc.c.Close()
		return engine.Answer{}, err
	}
	c.put(cc)
	return a, nil
}

// Connect opens a connection to the daemon and keeps it for the next
// request, and reports whether it could: a proxy calls it as it starts,
// so that its first decision finds the connection made, or knows at
// once that the daemon must be started (a socket file left by a daemon
// that was killed accepts no connection).
func (c *Client) Connect(wait time.Duration) bool {
	cc, err := c.dial(wait)
	if err != nil {
		return false
	}
	c.put(cc)
	return true
}

// Close closes the kept connections.
func (c *Client) Close() {
	c.mu.Lock()
	idle := c.idle
	c.idle = nil
	c.mu.Unlock()
	for _, cc := range idle {
		cc.c.Close()
	}
}

func (c *Client) take() *clientConn {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.idle); n > 0 {
		cc := c.idle[n-1]
		c.idle = c.idle[:n-1]
		return cc
	}
	return nil
}

func (c *Client) put(cc *clientConn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.idle) < maxIdle {
		c.idle = append(c.idle, cc)
		return
	}
	cc.c.Close()
}

func (c *Client) dial(wait time.Duration) (*clientConn, error) {
	sock := c.Paths.Socket()
	// The socket must be this user's: never hand a payload to a socket
	// someone else planted.
	if !hookproto.SocketIsMine(sock) {
		return nil, ErrUnavailable
	}
	conn, err := dialEndpoint(sock, wait)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return &clientConn{c: conn, br: bufio.NewReaderSize(conn, 64<<10)}, nil
}

func (cc *clientConn) ask(fields [][]byte, wait time.Duration) (engine.Answer, error) {
	cc.c.SetDeadline(time.Now().Add(wait))
	if err := hookproto.Write(cc.c, fields...); err != nil {
		return engine.Answer{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	ans, err := hookproto.Read(cc.br)
	if err != nil || len(ans) < 4 || string(ans[0]) != "ok" {
		return engine.Answer{}, fmt.Errorf("%w: no answer (%v)", ErrUnavailable, err)
	}
	code, err := strconv.Atoi(string(ans[1]))
	if err != nil {
		return engine.Answer{}, fmt.Errorf("%w: bad answer", ErrUnavailable)
	}
	a := engine.Answer{Code: code, Text: string(ans[2]), Stderr: string(ans[3])}
	if len(ans) > 4 {
		a.Failed = string(ans[4])
	}
	return a, nil
}

// Spawn starts `ctxhook daemon` detached from the caller (package
// detach). The daemon's lock makes racing spawners harmless: all but one
// exit at once.
func Spawn(bin string, environ []string) error {
	return platform.StartDetached(bin, []string{"daemon"}, environ, nil)
}

// startSettle is how long AwaitStart gives a daemon that was just
// spawned to take the compile lock, and one whose plugin is ready to
// open its socket, before it takes the daemon for one that is not
// coming. A daemon that starts takes its lock within milliseconds on a
// quiet machine; this is for a machine busy with a burst of hooks.
const startSettle = 3 * time.Second

// AwaitStart waits, until until, for a daemon that is starting: while a
// process compiles the daemon's build of the plugin into the cache
// (runner.Compiling), then for the socket. It reports whether a daemon
// now accepts connections. It stops early, false, when nobody compiles
// and no daemon came within startSettle: a spawn that failed, or a
// daemon that exited, must not hold a hook to its deadline.
func (c *Client) AwaitStart(until time.Time) bool {
	cache := c.Paths.WasmCache()
	began, quiet := time.Now(), time.Time{}
	for time.Now().Before(until) {
		if c.Connect(min(100*time.Millisecond, time.Until(until))) {
			return true
		}
		if runner.Compiling(cache, true) {
			quiet = time.Time{}
		} else if quiet.IsZero() {
			quiet = time.Now()
		} else if time.Since(quiet) > startSettle && time.Since(began) > startSettle {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

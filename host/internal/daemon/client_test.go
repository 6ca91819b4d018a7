//go:build unix

package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/internal/testcache"
)

// runDaemon runs a daemon in this process for home and waits for its
// socket; the returned channel gets Run's result.
func runDaemon(t *testing.T, home string, idle time.Duration) (paths.Paths, context.CancelFunc, chan error) {
	t.Helper()
	p, _ := paths.Resolve(func(k string) string {
		if k == "CTXHOOK_HOME" {
			return home
		}
		return ""
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Paths: p, Getenv: func(string) string { return "" }, Idle: idle})
	}()
	for i := 0; i < 1500; i++ {
		if _, err := os.Stat(p.Socket()); err == nil {
			return p, cancel, done
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	t.Fatal("daemon did not start")
	return p, nil, nil
}

func shortHome(t *testing.T) string {
	home, err := os.MkdirTemp("", "cxc") // short: the socket path must fit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	os.MkdirAll(filepath.Join(home, "config"), 0o700)
	testcache.LinkWasm(home) // the daemon in this process compiles once for every test
	return home
}

func testPayload(t *testing.T) []byte {
	b, err := os.ReadFile("../../../testdata/payloads/claude-code/2.1.330/hook-PreToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestClientKeepsConnection: a Client's second request goes over the
// connection its first one used, and a kept connection the daemon has
// since closed costs nothing but a new connection.
func TestClientKeepsConnection(t *testing.T) {
	home := shortHome(t)
	p, cancel, done := runDaemon(t, home, time.Minute)
	c := &Client{Paths: p}
	defer c.Close()
	req := hookproto.Request{Harness: "claude-code", Event: "PreToolUse", ID: "keep-1", Payload: testPayload(t)}
	if _, err := c.Ask(req, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if len(c.idle) != 1 {
		t.Fatalf("%d kept connections after one request, want 1", len(c.idle))
	}
	kept := c.idle[0].c
	req.ID = "keep-2"
	if _, err := c.Ask(req, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if len(c.idle) != 1 || c.idle[0].c != kept {
		t.Fatalf("the second request did not reuse the kept connection")
	}

	// The daemon goes away and another starts: the kept connection is
	// dead, and the request goes through on a new one.
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	_, cancel2, done2 := runDaemon(t, home, time.Minute)
	defer func() { cancel2(); <-done2 }()
	req.ID = "keep-3"
	a, err := c.Ask(req, 10*time.Second)
	if err != nil || a.Failed != "" {
		t.Fatalf("after the daemon restarted: %v %q", err, a.Failed)
	}
	if len(c.idle) != 1 || c.idle[0].c == kept {
		t.Fatalf("the dead connection was kept")
	}
}

// TestKeptConnectionDoesNotHoldTheDaemon: a daemon whose only client
// keeps an idle connection still exits when idle, and the client then
// finds it unavailable at once.
func TestKeptConnectionDoesNotHoldTheDaemon(t *testing.T) {
	home := shortHome(t)
	p, cancel, done := runDaemon(t, home, 2*time.Second)
	defer cancel()
	c := &Client{Paths: p}
	defer c.Close()
	req := hookproto.Request{Harness: "claude-code", Event: "PreToolUse", ID: "idle-1", Payload: testPayload(t)}
	if _, err := c.Ask(req, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the daemon did not exit while a client kept a connection")
	}
	start := time.Now()
	_, err := c.Ask(req, 10*time.Second)
	if !errors.Is(err, ErrUnavailable) || time.Since(start) > 5*time.Second {
		t.Fatalf("after the daemon left: %v after %v", err, time.Since(start))
	}
	if !strings.Contains(err.Error(), "unavailable") {
		t.Fatalf("error %v", err)
	}
}

// TestExitsWhenSocketGone: a daemon whose socket was removed (its
// CTXHOOK_HOME deleted) can be reached by nobody, and exits at its next
// check instead of at its idle time.
func TestExitsWhenSocketGone(t *testing.T) {
	home := shortHome(t)
	p, cancel, done := runDaemon(t, home, 8*time.Second) // checks every 2 s
	defer cancel()
	start := time.Now()
	if err := os.Remove(p.Socket()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(6 * time.Second):
		t.Fatalf("the daemon still ran %v after its socket was removed (idle time 8 s)", time.Since(start).Round(time.Second))
	}
}

// TestRefusesPlantedSocketDir: the socket's fallback directory under the
// temp dir (a data directory too deep for a socket path) that another
// user made first, or a symbolic link of theirs in its place, is refused:
// the daemon does not start (hooks decide in-process) and a link's
// target is not chmod-ed.
func TestRefusesPlantedSocketDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the directory is planted as another user (chown)")
	}
	deep := filepath.Join(shortHome(t), strings.Repeat("d", 90))
	p, _ := paths.Resolve(func(k string) string {
		if k == "CTXHOOK_HOME" {
			return deep
		}
		return ""
	})
	sockDir := filepath.Dir(p.Socket())
	if !strings.HasPrefix(sockDir, os.TempDir()) {
		t.Fatalf("socket %s is not under the temp dir", p.Socket())
	}
	defer os.RemoveAll(sockDir)
	run := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return Run(ctx, Options{Paths: p, Getenv: func(string) string { return "" }, Idle: time.Second})
	}
	// A directory of another user's.
	os.RemoveAll(sockDir)
	os.Mkdir(sockDir, 0o777)
	os.Chown(sockDir, 65534, 65534)
	if err := run(); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Errorf("a socket dir of uid 65534: %v", err)
	}
	// A link of another user's to a directory of ours.
	os.RemoveAll(sockDir)
	target := filepath.Join(shortHome(t), "target")
	os.Mkdir(target, 0o755)
	os.Chmod(target, 0o755) // whatever the umask an earlier test left
	os.Symlink(target, sockDir)
	os.Lchown(sockDir, 65534, 65534)
	if err := run(); err == nil || !strings.Contains(err.Error(), "symbolic link of uid 65534") {
		t.Errorf("a socket dir that is a link of uid 65534: %v", err)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o755 {
		t.Errorf("the link's target was chmod-ed to %v", fi.Mode().Perm())
	}
}

//go:build unix

package daemon

import (
	"bufio"
	"net"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hookproto"
)

// TestOlderFrameIsRefused: a client of the frame before requests had
// fields of their own (build, harness, event, whole environment,
// payload), with this build's id, is answered "refused" without its
// payload being read (the client decides in-process), and the daemon
// goes on serving.
func TestOlderFrameIsRefused(t *testing.T) {
	home := shortHome(t)
	p, cancel, done := runDaemon(t, home, time.Minute)
	defer func() { cancel(); <-done }()
	conn, err := net.DialTimeout("unix", p.Socket(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	environ := hookproto.EnvRequestID + "=old-1\x00" + hookproto.EnvDeadline + "=5000"
	if err := hookproto.Write(conn, []byte(BuildID()), []byte("claude-code"), []byte("PreToolUse"), []byte(environ), testPayload(t)); err != nil {
		t.Fatal(err)
	}
	ans, err := hookproto.Read(bufio.NewReader(conn))
	if err != nil || len(ans) < 1 || string(ans[0]) != "refused" {
		t.Fatalf("an older client's frame answered %q (%v), want refused", ans, err)
	}
	c := &Client{Paths: p}
	defer c.Close()
	a, err := c.Ask(hookproto.Request{Harness: "claude-code", Event: "PreToolUse", ID: "new-1", Payload: testPayload(t)}, 10*time.Second)
	if err != nil || a.Failed != "" {
		t.Fatalf("after an older client's frame: %v %q", err, a.Failed)
	}
}

// TestDeadlineIsTheField: the daemon answers by the deadline field, not
// by a CTXHOOK_HOOK_DEADLINE_MS the request's environment carries (a
// millisecond there would leave no time to decide).
func TestDeadlineIsTheField(t *testing.T) {
	home := shortHome(t)
	p, cancel, done := runDaemon(t, home, time.Minute)
	defer func() { cancel(); <-done }()
	c := &Client{Paths: p}
	defer c.Close()
	req := hookproto.Request{Harness: "claude-code", Event: "PreToolUse", ID: "field-1", Deadline: 30 * time.Second,
		Environ: []string{hookproto.EnvDeadline + "=1", hookproto.EnvLate + "=1", hookproto.EnvRequestID + "=env-1"}, Payload: testPayload(t)}
	a, err := c.Ask(req, 40*time.Second)
	if err != nil || a.Failed != "" {
		t.Fatalf("decided by the environment's deadline: %v %q %q", err, a.Failed, a.Stderr)
	}
}

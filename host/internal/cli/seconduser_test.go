//go:build unix

package cli

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/daemon"
	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/internal/homeprocs"
)

// nobody is the second local user of TestSecondUser.
const nobody = 65534

// TestSecondUser runs a real process as another local user (uid 65534)
// against a home where ctxhook has installed, captured through its daemon
// and been searched, with every directory above that home open to
// everyone, as home directories often are. That user must not read or
// write a file ctxhook made, create one in its directories, have the
// daemon answer it (even with the socket's directory opened to it by
// hand: the daemon checks the peer's uid), or find the capture with
// `ctxhook search`. Needs root to become the other user; skipped
// otherwise.
func TestSecondUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a process as a second user")
	}
	e := newEnv(t)
	home := e.vars["CTXHOOK_HOME"]
	t.Cleanup(func() { homeprocs.KillDaemons(home) })
	openAbove(t, home)
	if out, errs, code := e.proc(t, nil, "install", "claude-code"); code != 0 || !strings.Contains(out, "Started the ctxhook daemon") {
		t.Fatalf("install: %d\n%s%s", code, out, errs)
	}
	p, _ := paths.Resolve(e.get)
	waitFor(t, "the daemon's socket", func() bool { _, err := os.Stat(p.Socket()); return err == nil })
	if _, errs, code := e.proc(t, read(t, "hook-PostToolUse.json"), "hook", "claude-code", "PostToolUse"); code != 0 || errs != "" {
		t.Fatalf("hook: %d %q", code, errs)
	}
	waitFor(t, "the capture in the store", func() bool {
		out, _, _ := e.proc(t, nil, "search", "TCK-42")
		return strings.Contains(out, "tickets/get_ticket")
	})

	// Everything ctxhook made, listed as the user.
	var files, dirs []string
	filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
		case d.IsDir():
			dirs = append(dirs, path)
		case d.Type().IsRegular():
			files = append(files, path)
		}
		return nil
	})
	if len(files) < 5 || len(dirs) < 4 {
		t.Fatalf("too little to probe: %d files, %d dirs under %s", len(files), len(dirs), home)
	}
	bin := nobodysCopy(t)
	probe := func(extra ...string) string {
		t.Helper()
		list := filepath.Join(filepath.Dir(bin), "list")
		os.WriteFile(list, []byte(strings.Join(append(append(append([]string{}, files...), dirs...), extra...), "\n")), 0o644)
		os.Chmod(list, 0o644)
		cmd := exec.Command(bin, "-test.run=^$")
		cmd.Env = []string{"CTXHOOK_TEST_PROBE=" + list, "CTXHOOK_HOME=" + home, "HOME=" + filepath.Dir(bin)}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("probe as uid %d: %v\n%s", nobody, err, out)
		}
		if !strings.Contains(string(out), fmt.Sprintf("probed as uid %d", nobody)) {
			t.Fatalf("the probe did not run as uid %d:\n%s", nobody, out)
		}
		return string(out)
	}
	out := probe()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "GOT ") {
			t.Errorf("uid %d %s", nobody, strings.TrimPrefix(line, "GOT "))
		}
	}
	if !strings.Contains(out, "daemon refused") {
		t.Errorf("the daemon was not asked:\n%s", out)
	}

	// The socket's directory opened to everyone by hand: the daemon
	// itself must refuse the other user (its peer check).
	for dir := filepath.Dir(p.Socket()); strings.HasPrefix(dir, home); dir = filepath.Dir(dir) {
		os.Chmod(dir, 0o711)
	}
	os.Chmod(p.Socket(), 0o777)
	out = probe()
	if strings.Contains(out, "GOT daemon answered") || !strings.Contains(out, "daemon refused") {
		t.Errorf("with the socket reachable, the daemon answered uid %d:\n%s", nobody, out)
	}

	// ctxhook itself, run by the other user on this home, finds nothing.
	cmd := exec.Command(bin, "search", "TCK-42")
	cmd.Env = []string{"CTXHOOK_TEST_MAIN=1", "CTXHOOK_HOME=" + home, "HOME=" + filepath.Dir(bin), "CTXHOOK_NO_DAEMON=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	sout, _ := cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() == 0 || strings.Contains(string(sout), "get_ticket") {
		t.Errorf("search as uid %d: exit %v\n%s", nobody, cmd.ProcessState, sout)
	}
}

// secondUserProbe is the other user's side of TestSecondUser: for each
// path in the list it tries to read and to write a file, or to create
// one in a directory, then asks the daemon for a decision. It prints a
// "GOT" line for everything that worked.
func secondUserProbe(list string) {
	b, err := os.ReadFile(list)
	if err != nil {
		fmt.Println("GOT no list:", err)
		return
	}
	fmt.Printf("probed as uid %d\n", os.Getuid())
	for _, path := range strings.Split(string(b), "\n") {
		if path == "" {
			continue
		}
		if f, err := os.Open(path); err == nil {
			if fi, _ := f.Stat(); fi != nil && fi.IsDir() {
				if _, err := f.ReadDir(1); err == nil {
					fmt.Println("GOT listing of", path)
				}
				name := filepath.Join(path, "planted")
				if err := os.WriteFile(name, []byte("x"), 0o666); err == nil {
					fmt.Println("GOT a file created in", path)
				}
			} else if n, _ := io.ReadFull(f, make([]byte, 1)); n > 0 {
				fmt.Println("GOT a read of", path)
			}
			f.Close()
		}
		if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
			if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
				fmt.Println("GOT write access to", path)
				f.Close()
			}
		}
	}
	p, err := paths.Resolve(os.Getenv)
	if err != nil {
		fmt.Println("paths:", err)
		return
	}
	// Dialled directly, as a hostile client would: ctxhook's own client
	// would not even dial a socket of another user's.
	conn, err := net.DialTimeout("unix", p.Socket(), 2*time.Second)
	if err != nil {
		fmt.Println("daemon refused: cannot connect:", err)
		return
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	payload := []byte(`{"session_id":"x","hook_event_name":"PostToolUse","tool_name":"mcp__a__b","tool_input":{},"tool_response":"y"}`)
	req := hookproto.Request{Harness: "claude-code", Event: "PostToolUse", ID: "second-user", Payload: payload}
	if err := hookproto.Write(conn, req.Fields(daemon.BuildID())...); err != nil {
		fmt.Println("daemon refused: cannot send:", err)
		return
	}
	if ans, err := hookproto.Read(bufio.NewReader(conn)); err == nil {
		fmt.Printf("GOT daemon answered: %q\n", ans)
	} else {
		fmt.Println("daemon refused: no answer:", err)
	}
}

// openAbove opens every directory from the test's temporary root down to
// dir's parent to everyone, as a home directory often is: only
// ctxhook's own modes then stand between the other user and its files.
func openAbove(t *testing.T, dir string) {
	for d := filepath.Dir(dir); d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// nobodysCopy copies this test binary where the other user can run it.
func nobodysCopy(t *testing.T) string {
	dir := t.TempDir()
	openAbove(t, filepath.Join(dir, "x"))
	src, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "ctxhook.test")
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(bin, 0o755)
	os.Chmod(dir, 0o777) // the other user's HOME for its own run
	return bin
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(60 * time.Second); !ok(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no %s after a minute", what)
		}
	}
}

package proxy_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/testhooks"
)

var faultyPlugin struct {
	once sync.Once
	path string
	err  error
}

// faultyWasm builds the real plugin with the ctxhook_testfault tag: it
// traps on a proxy response holding CTXHOOK_TEST_TRAP and never returns on
// one holding CTXHOOK_TEST_HANG (plugin/guest/fault.go).
//
// The proxy under test is this test binary, which reads
// CTXHOOK_TEST_PLUGIN only when built with the test knobs.
func faultyWasm(t *testing.T) string {
	t.Helper()
	if !testhooks.Enabled {
		t.Skip("runs the proxy with CTXHOOK_TEST_PLUGIN: go test -tags ctxhook_testhooks (make unit)")
	}
	faultyPlugin.once.Do(func() {
		dir, err := os.MkdirTemp("", "ctxhook-faulty-")
		if err != nil {
			faultyPlugin.err = err
			return
		}
		faultyPlugin.path = filepath.Join(dir, "faulty.wasm")
		cmd := exec.Command("go", "build", "-tags", "ctxhook_testfault", "-buildmode=c-shared", "-o", faultyPlugin.path, "./plugin/guest")
		cmd.Dir = "../../.."
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			faultyPlugin.err = errors.New(string(b))
		}
	})
	if faultyPlugin.err != nil {
		t.Fatal(faultyPlugin.err)
	}
	return faultyPlugin.path
}

// TestFaultyPluginFailsClosed: the plugin traps, or never returns, on one
// result of a relay server. That result reaches the client without its
// session token; the token is still captured, so each of the next ten
// calls carries the right one (the server rejects any other); no result
// ever shows a token. In-process and through the daemon.
func TestFaultyPluginFailsClosed(t *testing.T) {
	wasm := faultyWasm(t)
	for _, tt := range []struct {
		name, mark string
		daemon     bool
	}{
		{"trap in-process", "CTXHOOK_TEST_TRAP", false},
		{"hang in-process", "CTXHOOK_TEST_HANG", false},
		{"trap through the daemon", "CTXHOOK_TEST_TRAP", true},
		{"hang through the daemon", "CTXHOOK_TEST_HANG", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := []string{"CTXHOOK_TEST_PLUGIN=" + wasm, "CTXHOOK_DAEMON_TEST_WATCHDOG_MS=1500"}
			if tt.daemon {
				env = append(env, "CTXHOOK_NO_DAEMON=")
			}
			f := connectWith(t, []string{"--timeout", "60s", "--", "/usr/bin/env", "PROXY_TEST_ROLE=server", os.Args[0]}, env)
			if tt.daemon {
				t.Cleanup(func() { stopDaemons(t, f.home) })
				waitDaemon(t, f.home)
			}
			if r, err := f.call(t, "start_session", map[string]any{}); err != nil || strings.Contains(text(r), "wfs_") {
				t.Fatalf("start_session: %v %s", err, text(r))
			}
			start := time.Now()
			r, err := f.call(t, "step", map[string]any{"n": 1, "mark": tt.mark})
			if err != nil {
				t.Fatalf("the faulty step: %v\nproxy stderr: %s", err, f.stderr)
			}
			if strings.Contains(text(r), "wfs_") {
				t.Fatalf("the result whose decision failed shows its token: %s", text(r))
			}
			t.Logf("faulty step answered after %v: %.120s", time.Since(start).Round(time.Millisecond), text(r))
			for n := 2; n <= 11; n++ {
				r, err := f.call(t, "step", map[string]any{"n": n})
				if err != nil || r.IsError {
					t.Fatalf("step %d after the fault: %v %s\nproxy stderr: %s", n, err, text(r), f.stderr)
				}
				if strings.Contains(text(r), "wfs_") {
					t.Fatalf("step %d shows the token: %s", n, text(r))
				}
			}
		})
	}
}

// waitDaemon waits for the daemon a proxy started in home to listen.
func waitDaemon(t *testing.T, home string) {
	t.Helper()
	p, _ := paths.Resolve(func(k string) string {
		if k == "CTXHOOK_HOME" {
			return home
		}
		return ""
	})
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(p.Socket()); err == nil {
			return
		}
	}
	t.Fatalf("no daemon listens for %s", home)
}

// daemonsOf lists the ctxhook daemons whose environment names home.
func daemonsOf(home string) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !strings.Contains(string(env), "CTXHOOK_HOME="+home+"\x00") {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		if strings.Contains(string(cmd), "daemon") {
			var pid int
			if _, err := fmt.Sscan(filepath.Base(d), &pid); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// stopDaemons ends the daemons started for home.
func stopDaemons(t *testing.T, home string) {
	for _, pid := range daemonsOf(home) {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
}

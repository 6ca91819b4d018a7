//go:build unix

package main

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHookBinaryMustBeOwn: the hook client runs the binary CTXHOOK_BIN
// names only when it is this user's and no one else may change it or its
// directory. Given a world-writable file, a file in a world-writable
// directory, or (as root) a file of nobody's, it runs the ctxhook beside
// it instead, saying so in one stderr line: the planted binary never
// sees the payload. A binary of the user's own is run.
func TestHookBinaryMustBeOwn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ctxhook and its hook client (-short)")
	}
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", dir+"/", "../ctxhook", ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v %s", err, out)
	}
	home := t.TempDir()
	plant := func(t *testing.T, dirMode, mode os.FileMode) (bin, marker string) {
		d := filepath.Join(t.TempDir(), "d")
		os.Mkdir(d, 0o700)
		bin, marker = filepath.Join(d, "evil"), filepath.Join(d, "ran")
		os.WriteFile(bin, []byte("#!/bin/sh\ncat > "+marker+"\necho '{\"evil\":true}'\n"), 0o700)
		if err := os.Chmod(bin, mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, dirMode)
		return bin, marker
	}
	cases := []struct {
		name    string
		dirMode os.FileMode
		mode    os.FileMode
		give    string // "uid" or "gid": to nobody's (root only)
		used    bool
	}{
		{"own 0700", 0o700, 0o700, "", true},
		{"world-writable file", 0o700, 0o777, "", false},
		{"file writable by another group", 0o700, 0o770, "gid", false},
		{"world-writable directory", 0o777, 0o700, "", false},
		{"another user's file", 0o700, 0o755, "uid", false},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			bin, marker := plant(t, tt.dirMode, tt.mode)
			if tt.give != "" {
				nobody, err := user.Lookup("nobody")
				if os.Geteuid() != 0 || err != nil {
					t.Skip("needs root and a nobody account to give a file away")
				}
				uid, _ := strconv.Atoi(nobody.Uid)
				gid, _ := strconv.Atoi(nobody.Gid)
				if tt.give == "uid" {
					gid = -1
				} else {
					uid = -1
				}
				if err := os.Chown(bin, uid, gid); err != nil {
					t.Fatal(err)
				}
			}
			c := exec.Command(filepath.Join(dir, "ctxhook-hook"), "claude-code", "PostToolUse")
			c.Env = []string{"CTXHOOK_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH"),
				"CTXHOOK_NO_DAEMON=1", "CTXHOOK_HOOK_DEADLINE_MS=120000", "CTXHOOK_BIN=" + bin}
			c.Stdin = strings.NewReader(`{"session_id":"s-` + strings.ReplaceAll(tt.name, " ", "-") +
				`","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t","cwd":"/tmp",` +
				`"tool_input":{"command":"cat x"},"tool_response":{"stdout":"token ghp_notreallyasecret","stderr":""}}`)
			var out, stderr strings.Builder
			c.Stdout, c.Stderr = &out, &stderr
			if err := c.Run(); err != nil {
				t.Fatalf("hook: %v %s", err, stderr.String())
			}
			_, err := os.Stat(marker)
			if ran := err == nil; ran != tt.used || strings.Contains(out.String(), "evil") != tt.used {
				t.Fatalf("CTXHOOK_BIN ran: %v (answer %q), want %v", ran, out.String(), tt.used)
			}
			if n := strings.Count(stderr.String(), "ignoring CTXHOOK_BIN"); n != map[bool]int{false: 1}[tt.used] {
				t.Fatalf("stderr %q: want one line about CTXHOOK_BIN when it is refused", stderr.String())
			}
			if !tt.used && !strings.Contains(out.String(), "ctxhook search") {
				t.Fatalf("the ctxhook beside the client did not answer: %q", out.String())
			}
		})
	}
}

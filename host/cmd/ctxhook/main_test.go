package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStrayWatchdogVariable: with CTXHOOK_WATCHDOG_PARENT set by someone
// other than ctxhook's watchdog (not a pid, init's pid, or the pid of the
// very process that started it), the built binary still hooks, stores,
// diagnoses and proxies, saying once on stderr that it ignored the value.
func TestStrayWatchdogVariable(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "ctxhook")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v %s", err, out)
	}
	home := t.TempDir() // one home: the plugin is compiled once
	for i, value := range []string{"notapid", "1", strconv.Itoa(os.Getpid())} {
		t.Run(value, func(t *testing.T) {
			word := "quokkaparade" + strconv.Itoa(i)
			payload := `{"session_id":"` + word + `","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t` + word +
				`","cwd":"/tmp","tool_input":{"command":"cat notes"},"tool_response":{"stdout":"` + word + ` notes","stderr":""}}`
			run := func(stdin string, args ...string) (string, string) {
				t.Helper()
				c := exec.Command(bin, args...)
				c.Env = []string{"CTXHOOK_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH"),
					"CTXHOOK_NO_DAEMON=1", "CTXHOOK_WATCHDOG_PARENT=" + value}
				c.Stdin = strings.NewReader(stdin)
				var out, errb strings.Builder
				c.Stdout, c.Stderr = &out, &errb
				// doctor exits 1 when nothing is installed; its report is
				// what counts.
				if err := c.Run(); err != nil && args[0] != "doctor" {
					t.Fatalf("%v: %v %s", args, err, errb.String())
				}
				if n := strings.Count(errb.String(), "CTXHOOK_WATCHDOG_PARENT"); n != 1 {
					t.Fatalf("%v: stderr %q, want one line about the variable", args, errb.String())
				}
				return out.String(), errb.String()
			}
			if out, _ := run(payload, "hook", "claude-code", "PostToolUse"); !strings.Contains(out, "ctxhook search") {
				t.Fatalf("hook answered %q", out)
			}
			if out, _ := run("", "search", "--json", word); !strings.Contains(out, `"total": 1`) {
				t.Fatalf("the hook's event is not stored: %s", out)
			}
			if out, _ := run("", "doctor", "claude-code"); !strings.Contains(out, "plugin loads") {
				t.Fatalf("doctor said %q", out)
			}
			if _, errb := run("", "proxy", "--name", "x", "--", "/bin/echo", "hi"); !strings.Contains(errb, `"x" exited`) {
				t.Fatalf("proxy said %q", errb)
			}
		})
	}
}

//go:build unix

package daemon_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/internal/bigpayload"
	"github.com/ctxhook/ctxhook/internal/homeprocs"
)

// searchFor polls `ctxhook search` until marker is found or wait passes,
// and returns how long it took (or -1).
func (f *fixture) searchFor(marker string, wait time.Duration) time.Duration {
	f.t.Helper()
	start := time.Now()
	for time.Since(start) < wait {
		cmd := exec.Command(f.ctxhook, "search", "--json", marker)
		cmd.Env = f.env
		out, _ := cmd.Output()
		if strings.Contains(string(out), `"snippet"`) && strings.Contains(string(out), marker) { // a result, not the query echoed
			return time.Since(start)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return -1
}

// noSecrets fails if a planted secret is in any file ctxhook wrote.
func (f *fixture) noSecrets() {
	f.t.Helper()
	var files []string
	for _, dir := range []string{f.paths().Data} {
		filepathWalk(dir, func(p string) { files = append(files, p) })
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, s := range bigpayload.Secrets {
			if strings.Contains(string(b), s) {
				f.t.Errorf("planted secret %q is in %s", s, p)
			}
		}
	}
}

// TestBigPayloads: warm hooks with MCP results of 1 KB, 1 MiB, 10 MiB and
// 64 MiB answer within their deadline with a valid answer, and each
// result is searchable to its last bytes soon after, with no planted
// secret stored anywhere. The 10 MiB one answers in well under its
// deadline; its figure is logged, not asserted (`make bench` reports
// it).
func TestBigPayloads(t *testing.T) {
	f := newFixture(t)
	f.startDaemon()
	sizes := []int{1 << 10, 1 << 20, 10 << 20, 64 << 20}
	if testing.Short() {
		sizes = sizes[:3]
	}
	for i, n := range sizes {
		marker := "bigM" + string(rune('A'+i)) + "Z9"
		p := bigpayload.ClaudePostToolUse(n, marker, "big-session", "toolu_big"+marker)
		out, errOut, took := f.hook("PostToolUse", p)
		if out != "" && !json.Valid([]byte(out)) {
			t.Fatalf("%d bytes: invalid answer %q", n, out)
		}
		if took > 11*time.Second {
			t.Errorf("%d bytes: answered after %v, past the deadline", n, took)
		}
		if strings.Contains(errOut, "continues without ctxhook") {
			t.Errorf("%d bytes: the hook failed open: %s", n, errOut)
		}
		found := f.searchFor(marker, 60*time.Second)
		if found < 0 {
			t.Fatalf("%d bytes: the last bytes of the result are not searchable (stderr %q)", n, errOut)
		}
		t.Logf("%9d bytes: answered in %v, searchable %v later", len(p), took.Round(time.Millisecond), found.Round(10*time.Millisecond))
	}
	f.noSecrets()
}

// TestBigFinishedLate: a big payload in-process past a short deadline is
// finished in the background and stored, not dropped when its calls take
// longer than a small payload's bound.
func TestBigFinishedLate(t *testing.T) {
	f := newColdFixture(t) // compiling outlasts the deadline: late for sure
	p := bigpayload.ClaudePostToolUse(5<<20, "lateBigZ7", "late-session", "toolu_late")
	out, errOut, took := f.hook("PostToolUse", p, "CTXHOOK_NO_DAEMON=1", "CTXHOOK_HOOK_DEADLINE_MS=1500")
	if out != "" && !json.Valid([]byte(out)) {
		t.Fatalf("invalid answer %q", out)
	}
	if took > 2500*time.Millisecond {
		t.Errorf("answered after %v with a 1.5 s deadline", took)
	}
	if f.searchFor("lateBigZ7", 60*time.Second) < 0 {
		t.Fatalf("the event was not stored (stderr %q)", errOut)
	}
}

// TestStdinNeverCloses: a harness that never closes the hook's stdin
// does not hold the hook past its deadline.
func TestStdinNeverCloses(t *testing.T) {
	f := newFixture(t)
	cmd := exec.Command(f.client, "claude-code", "PostToolUse")
	cmd.Env = append(append([]string{}, f.env...), "CTXHOOK_HOOK_DEADLINE_MS=1000")
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var errb strings.Builder
	cmd.Stderr = &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("exit %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v with a 1 s deadline", d)
	}
	if !strings.Contains(errb.String(), "did not arrive") {
		t.Errorf("stderr %q", errb.String())
	}
}

func filepathWalk(dir string, fn func(string)) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := dir + "/" + e.Name()
		if e.IsDir() {
			filepathWalk(p, fn)
		} else if e.Type().IsRegular() {
			fn(p)
		}
	}
}

// TestHandedOnDecidedOnce: big hooks the daemon cannot decide by their
// deadline are handed on by the client, and still decided once each:
// the one the daemon had begun is finished by it (the process it was
// handed to waits for that run), the one still queued behind it is
// dropped by the daemon and decided by the process it was handed to.
// Each session's call counter moves once, and each result is stored.
func TestHandedOnDecidedOnce(t *testing.T) {
	f := newFixture(t)
	f.startDaemon()
	markers := []string{"onceAZ3", "onceBZ3"}
	var wg sync.WaitGroup
	for _, m := range markers {
		p := bigpayload.ClaudePostToolUse(16<<20, m, "session-"+m, "toolu_"+m)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errOut, _ := f.hook("PostToolUse", p, "CTXHOOK_HOOK_DEADLINE_MS=400")
			if !strings.Contains(errOut, "finishes in the background") {
				t.Errorf("%s: stderr %q, want the hand-on named", m, errOut)
			}
		}()
	}
	wg.Wait()
	for _, m := range markers {
		if f.searchFor(m, 60*time.Second) < 0 {
			t.Fatalf("%s: not stored", m)
		}
	}
	// Wait for the processes the hooks were handed to.
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end) && homeprocs.Finishers(f.home) > 0; {
		time.Sleep(50 * time.Millisecond)
	}
	sessions, _ := filepath.Glob(filepath.Join(f.paths().StateDir(), "*.json"))
	if len(sessions) != len(markers) {
		t.Fatalf("%d session states, want %d", len(sessions), len(markers))
	}
	for _, s := range sessions {
		var doc struct {
			Calls int `json:"mcp_calls"`
		}
		b, _ := os.ReadFile(s)
		if json.Unmarshal(b, &doc); doc.Calls != 1 {
			t.Errorf("%s: mcp_calls %d, want 1 (the hook was decided %d times)", filepath.Base(s), doc.Calls, doc.Calls)
		}
	}
	if n := f.events(); n != int64(len(markers)) {
		t.Errorf("%d events stored, want %d", n, len(markers))
	}
}

//go:build linux

package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/host/store"
)

// secretPayload is a real PostToolUse whose response holds an AWS key:
// no fault may put it on stderr.
const plantedKey = "AKIAZ7QW4XKD2M5TB6RP"

func secretPayload(t *testing.T) []byte {
	var p map[string]any
	json.Unmarshal(payload(t, "PostToolUse"), &p)
	p["tool_response"] = []map[string]string{{"type": "text", "text": "Ticket FAULT-1: rotate key " + plantedKey + " today"}}
	b, _ := json.Marshal(p)
	return b
}

// checkAnswer: exit 0, stdout empty or one JSON object, stderr only
// ctxhook lines, no secret anywhere in what the agent sees.
func checkAnswer(t *testing.T, code int, stdout, stderr string) {
	t.Helper()
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	if s := strings.TrimSpace(stdout); s != "" {
		var obj map[string]any
		if json.Unmarshal([]byte(s), &obj) != nil {
			t.Errorf("stdout is not one JSON object: %q", stdout)
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if line != "" && !strings.HasPrefix(line, "ctxhook: ") {
			t.Errorf("stderr line %q", line)
		}
	}
	if strings.Contains(stdout+stderr, plantedKey) {
		t.Errorf("the planted key reached the agent: %q %q", stdout, stderr)
	}
}

// mountTmpfs mounts a tmpfs of size bytes at dir (root only).
func mountTmpfs(t *testing.T, dir string, size string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root to mount a tmpfs")
	}
	os.MkdirAll(dir, 0o700)
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
}

// TestFaultMatrix: for each fault, the agent gets a valid answer within
// the deadline and nothing secret; where anything can be written, the
// event is kept (stored, or spooled and stored by the next hook).
func TestFaultMatrix(t *testing.T) {
	type result struct {
		code           int
		stdout, stderr string
	}
	run := func(t *testing.T, e env, stdin []byte) result {
		var out, errb bytes.Buffer
		code := Run(context.Background(), "claude-code", "PostToolUse", IO{Stdin: bytes.NewReader(stdin), Stdout: &out, Stderr: &errb}, e.get)
		return result{code, out.String(), errb.String()}
	}
	tests := []struct {
		name string
		// fault sets the fault up and returns a func that repairs it (or nil).
		fault func(t *testing.T, e env, p paths.Paths) (repair func())
		stdin func(t *testing.T) []byte
		// kept: the event must be in the store after the repair and one
		// more hook.
		kept bool
		want string // in stderr
	}{
		{name: "db missing", kept: true, fault: func(t *testing.T, e env, p paths.Paths) func() {
			run(t, e, secretPayload(t))
			for _, s := range []string{"", "-wal", "-shm"} {
				os.Remove(p.DB() + s)
			}
			return nil
		}},
		{name: "db corrupt", kept: true, want: "spooled", fault: func(t *testing.T, e env, p paths.Paths) func() {
			paths.EnsureDir(p.Data)
			os.WriteFile(p.DB(), bytes.Repeat([]byte("garbage!"), 512), 0o600)
			return func() { os.Rename(p.DB(), p.DB()+".broken") }
		}},
		{name: "db locked 10 s", kept: true, want: "spooled", fault: func(t *testing.T, e env, p paths.Paths) func() {
			run(t, e, payload(t, "UserPromptSubmit"))
			holder, err := store.Open(p.DB(), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			release, err := holder.HoldWriteLock()
			if err != nil {
				t.Fatal(err)
			}
			timer := time.AfterFunc(10*time.Second, release)
			return func() { timer.Stop(); release(); holder.Close() }
		}},
		{name: "read-only file system", want: "lost", fault: func(t *testing.T, e env, p paths.Paths) func() {
			mountTmpfs(t, p.Data, "8m")
			run(t, e, payload(t, "UserPromptSubmit"))
			if err := syscall.Mount("", p.Data, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
				t.Skipf("remount read-only: %v", err)
			}
			return nil
		}},
		{name: "disk full", want: "lost", fault: func(t *testing.T, e env, p paths.Paths) func() {
			mountTmpfs(t, p.Data, "2m")
			run(t, e, payload(t, "UserPromptSubmit"))
			f, _ := os.Create(filepath.Join(p.Data, "filler"))
			f.Write(make([]byte, 4<<20)) // ENOSPC part way
			f.Close()
			return nil
		}},
		{name: "malformed stdin", want: "bad hook payload", stdin: func(*testing.T) []byte { return []byte(`{"session_id": "x", "tool_response": [`) }},
		{name: "64 MiB stdin", want: "larger than", stdin: func(*testing.T) []byte { return bytes.Repeat([]byte("a"), MaxInput+1) }},
		{name: "EXTISM_ENABLE_WASI_OUTPUT set", kept: true, fault: func(t *testing.T, e env, p paths.Paths) func() {
			t.Setenv("EXTISM_ENABLE_WASI_OUTPUT", "1")
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := home(t)
			p, _ := paths.Resolve(e.get)
			var repair func()
			if tt.fault != nil {
				repair = tt.fault(t, e, p)
			}
			before := eventsIn(t, e)
			stdin := secretPayload(t)
			if tt.stdin != nil {
				stdin = tt.stdin(t)
			}
			start := time.Now()
			r := run(t, e, stdin)
			took := time.Since(start)
			checkAnswer(t, r.code, r.stdout, r.stderr)
			if took > DefaultDeadline+50*time.Millisecond {
				t.Errorf("took %v", took)
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr %q, want %q", r.stderr, tt.want)
			}
			if repair != nil {
				repair()
			}
			if tt.kept {
				run(t, e, payload(t, "UserPromptSubmit")) // replays the spool
				if after := eventsIn(t, e); after < before+1 {
					t.Errorf("event not kept: %d events before, %d after", before, after)
				}
			}
			t.Logf("answered in %v; stderr %.160q", took.Round(time.Millisecond), r.stderr)
		})
	}
}

// TestGuestFaults: a plugin that traps, loops or runs out of memory
// leaves the agent a valid (empty) answer with one line on stderr.
func TestGuestFaults(t *testing.T) {
	out := filepath.Join(t.TempDir(), "faulty.wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, "../../runner/testdata/faulty")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s", b)
	}
	wasm, _ := os.ReadFile(out)
	for _, mode := range []string{"trap", "loop", "oom"} {
		t.Run(mode, func(t *testing.T) {
			e := home(t)
			p, _ := paths.Resolve(e.get)
			eng, err := NewEngineWith(context.Background(), p, e.get, runner.Options{Wasm: wasm, CallTimeout: 500 * time.Millisecond, MaxMemoryPages: 512}, Store)
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close(context.Background())
			in, _ := json.Marshal(map[string]string{"session_id": "s", "mode": mode, "note": plantedKey})
			start := time.Now()
			a := RunPayload(context.Background(), eng, Request{Getenv: e.get}, Deadline(e.get), "claude-code", "PostToolUse", in)
			code, stdout, stderr := a.Code, a.Text, a.Stderr
			checkAnswer(t, code, stdout, stderr)
			if stdout != "" || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stdout %q stderr %q, want nothing and one line", stdout, stderr)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}

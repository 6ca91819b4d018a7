// Package release checks what users run: the binaries `make build` builds,
// by running that very target. A test knob (package testhooks) must be
// absent from them and have no effect there; the same binaries built with
// -tags ctxhook_testhooks are the control that shows each knob would
// matter.
package release

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/testhooks"
)

// knobs are every variable package testhooks reads.
var knobs = []string{
	"CTXHOOK_TEST_PLUGIN", "CTXHOOK_TEST_COMPILE_LOG", "CTXHOOK_DAEMON_TEST_BUILD_ID",
	"CTXHOOK_DAEMON_TEST_DELAY_MS", "CTXHOOK_DAEMON_TEST_IN_FLIGHT", "CTXHOOK_DAEMON_TEST_WATCHDOG_MS",
}

var built struct {
	once             sync.Once
	dir              string // removed by TestMain
	release, knobbed string
	noRedact         string
	err              error
}

// TestMain removes the builds (about 100 MB) once every test has run:
// make test fails on any ctxhook temp entry left behind.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		if err := os.RemoveAll(built.dir); err != nil {
			fmt.Fprintln(os.Stderr, "release: remove the builds:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// binaries returns the directory of `make build`'s binaries, that of the
// same commands built with the test knobs, and the no-redaction plugin.
func binaries(t *testing.T) (release, knobbed, noRedact string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds ctxhook twice (-short)")
	}
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "ctxhook-release-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		built.release, built.knobbed = filepath.Join(dir, "release"), filepath.Join(dir, "knobbed")
		built.noRedact = filepath.Join(dir, "noredact.wasm")
		steps := []*exec.Cmd{
			exec.Command("make", "-C", "../../..", "build", "BIN="+filepath.Join(built.release, "ctxhook")),
			exec.Command("go", "build", "-tags", testhooks.Tag, "-trimpath", "-o", built.knobbed+"/", "../../cmd/ctxhook", "../../cmd/ctxhook-hook"),
			exec.Command("go", "build", "-buildmode=c-shared", "-o", built.noRedact, "./testdata/noredact"),
		}
		steps[2].Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		for _, c := range steps {
			if out, err := c.CombinedOutput(); err != nil {
				built.err = &buildErr{c.String() + ": " + string(out)}
				return
			}
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.release, built.knobbed, built.noRedact
}

type buildErr struct{ s string }

func (e *buildErr) Error() string { return e.s }

// TestReleaseHasNoKnobs: no knob's name is in a release binary, so no
// code there can read it; each is in the knobbed build (the check would
// see one).
func TestReleaseHasNoKnobs(t *testing.T) {
	release, knobbed, _ := binaries(t)
	for _, tt := range []struct {
		dir  string
		want bool
	}{{release, false}, {knobbed, true}} {
		b, err := os.ReadFile(filepath.Join(tt.dir, "ctxhook"))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range knobs {
			if got := bytes.Contains(b, []byte(k)); got != tt.want {
				t.Errorf("%s: %s in the binary: %v, want %v", tt.dir, k, got, tt.want)
			}
		}
	}
}

// TestReleaseIgnoresTestPlugin: a hook with CTXHOOK_TEST_PLUGIN naming a
// plugin that stores everything unredacted, and CTXHOOK_TEST_COMPILE_LOG
// naming a file, on a cold cache. The release binary runs its own plugin:
// the event is stored with the secret redacted, no file under the home
// holds the secret, and no compile log is written. The knobbed build,
// given the same, stores the secret in clear and writes the log.
func TestReleaseIgnoresTestPlugin(t *testing.T) {
	release, knobbed, noRedact := binaries(t)
	secret := ghToken(t)
	for _, tt := range []struct {
		dir   string
		leaks bool
	}{{release, false}, {knobbed, true}} {
		t.Run(filepath.Base(tt.dir), func(t *testing.T) {
			home := t.TempDir()
			log := filepath.Join(t.TempDir(), "compiles")
			env := []string{"CTXHOOK_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH"),
				"CTXHOOK_NO_DAEMON=1", "CTXHOOK_HOOK_DEADLINE_MS=120000",
				"CTXHOOK_TEST_PLUGIN=" + noRedact, "CTXHOOK_TEST_COMPILE_LOG=" + log}
			hook := exec.Command(filepath.Join(tt.dir, "ctxhook"), "hook", "claude-code", "PostToolUse")
			hook.Env = env
			hook.Stdin = bytes.NewReader(payload(t, secret))
			if out, err := hook.CombinedOutput(); err != nil {
				t.Fatalf("hook: %v %s", err, out)
			}
			leaked := filesHolding(t, home, secret)
			if got := len(leaked) > 0; got != tt.leaks {
				t.Fatalf("secret in %v; want a leak: %v", leaked, tt.leaks)
			}
			if _, err := os.Stat(log); (err == nil) != tt.leaks {
				t.Fatalf("compile log written: %v, want %v", err == nil, tt.leaks)
			}
			if tt.leaks {
				return
			}
			search := exec.Command(filepath.Join(tt.dir, "ctxhook"), "search", "--json", "zebracrossing")
			search.Env = env
			out, err := search.Output()
			if err != nil || !strings.Contains(string(out), "REDACTED") || strings.Contains(string(out), secret) {
				t.Fatalf("search: %v %s", err, out)
			}
		})
	}
}

// TestReleaseLeavesNoTemp runs one release test in a child process whose
// TMPDIR is a fresh directory: once it has exited, nothing of it may be
// left there (its builds are about 100 MB per run).
func TestReleaseLeavesNoTemp(t *testing.T) {
	if os.Getenv("CTXHOOK_RELEASE_CHILD") != "" {
		t.Skip("the child runs the release tests only")
	}
	binaries(t) // skips under -short; warms the build cache for the child
	tmp, err := os.MkdirTemp("", "release-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	child := exec.Command(os.Args[0], "-test.run=^TestReleaseHasNoKnobs$", "-test.count=1")
	child.Env = append(os.Environ(), "TMPDIR="+tmp, "CTXHOOK_RELEASE_CHILD=1")
	if out, err := child.CombinedOutput(); err != nil {
		t.Fatalf("child: %v %s", err, out)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left in TMPDIR: %s", e.Name())
	}
}

// ghToken is a GitHub token of the documented shape, drawn now.
func ghToken(t *testing.T) string {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 36)
	rand.Read(b)
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return "ghp_" + string(b)
}

func payload(t *testing.T, secret string) []byte {
	b, err := json.Marshal(map[string]any{
		"session_id": "release-test", "hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_use_id": "toolu_release", "cwd": "/tmp", "tool_input": map[string]string{"command": "cat notes"},
		"tool_response": map[string]any{"stdout": "zebracrossing deploy notes: token " + secret, "stderr": ""},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// filesHolding lists the files under dir whose bytes hold s.
func filesHolding(t *testing.T, dir, s string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(s)) {
				out = append(out, p)
			}
		}
		return nil
	})
	return out
}

// TestReleaseIgnoresGoFlagsTags: `make build` under a go env file and a
// GOFLAGS that both ask for -tags ctxhook_testhooks still builds a
// binary without the knobs: its build information has no -tags and
// --version gives no warning, while the knobbed build's --version and
// doctor say plainly that it is a test-knob build.
func TestReleaseIgnoresGoFlagsTags(t *testing.T) {
	_, knobbed, _ := binaries(t) // skips under -short
	dir := t.TempDir()
	goenv := filepath.Join(dir, "go.env")
	if err := os.WriteFile(goenv, []byte("GOFLAGS=-tags="+testhooks.Tag+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "ctxhook")
	for _, env := range [][]string{{"GOENV=" + goenv}, {"GOENV=" + goenv, "GOFLAGS=-tags=" + testhooks.Tag}} {
		c := exec.Command("make", "-C", "../../..", "build", "BIN="+bin)
		c.Env = append(os.Environ(), env...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v make build: %v %s", env, err, out)
		}
		for _, b := range []string{bin, bin + "-hook"} {
			out, err := exec.Command("go", "version", "-m", b).Output()
			if err != nil || strings.Contains(string(out), "-tags") {
				t.Fatalf("%v: go version -m %s: %v\n%s", env, b, err, out)
			}
		}
		if out, _ := exec.Command(bin, "--version").Output(); strings.Contains(string(out), "TEST-KNOB") {
			t.Fatalf("%v: the release build says %s", env, out)
		}
	}
	home := t.TempDir()
	for _, args := range [][]string{{"--version"}, {"doctor", "claude-code"}} {
		c := exec.Command(filepath.Join(knobbed, "ctxhook"), args...)
		c.Env = []string{"CTXHOOK_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH"), "CTXHOOK_NO_DAEMON=1"}
		out, _ := c.Output()
		if !strings.Contains(string(out), "TEST-KNOB BUILD") {
			t.Fatalf("the knobbed build's %v does not say what it is:\n%s", args, out)
		}
	}
}

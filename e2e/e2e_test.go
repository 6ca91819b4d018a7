// Package e2e runs real agent clients, offline, against ctxhook: a fake
// model server on 127.0.0.1 scripts the model, the project's own MCP test
// server plays the MCP servers, and ctxhook is wired in by `ctxhook
// install`, in an isolated HOME.
//
// The tests need npm (to install the pinned client once into .work/) and
// run only when CTXHOOK_E2E=1 (`make e2e`).
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// ClaudeCodeVersion is the pinned Claude Code release: hook behaviour
// changes between releases (2.1.330 defers MCP tools behind ToolSearch).
const ClaudeCodeVersion = "2.1.330"

// TestMain with CTXHOOK_E2E_PREPARE=1 installs every pinned client and
// exits: `make e2e` runs it with the network, then the tests without.
func TestMain(m *testing.M) {
	if os.Getenv("CTXHOOK_E2E_PREPARE") == "1" {
		if err := installClients(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: prepare:", err)
			os.Exit(1)
		}
		if err := prepareOpenCodeDeps(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: prepare:", err)
			os.Exit(1)
		}
		if err := preparePi(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: prepare:", err)
			os.Exit(1)
		}
		for _, prepare := range preparers {
			if err := prepare(); err != nil {
				fmt.Fprintln(os.Stderr, "e2e: prepare:", err)
				os.Exit(1)
			}
		}
		fmt.Println("e2e: pinned clients installed")
		os.Exit(0)
	}
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir) // the binaries built once for every test
	}
	os.Exit(code)
}

// installClients installs the pinned clients, four at a time: each goes
// into a directory of its own and npm's cache takes concurrent installs,
// and on a fresh machine the installs are most of the e2e stage's first
// minutes, spent waiting on the registry one package after another.
func installClients() error {
	errs := make([]error, len(clients))
	slots := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			errs[i] = npmInstallErr(c.pkg, c.version, c.bin)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// preparers install what a client needs beyond one npm package (its own
// Node, an order of installs); a client's test file adds its own.
var preparers []func() error

// clients are the pinned real clients the e2e tests run.
var clients = []struct{ pkg, version, bin string }{
	{"@anthropic-ai/claude-code", ClaudeCodeVersion, "claude"},
	{"@modelcontextprotocol/sdk", TypeScriptSDKVersion, ""},
	{"@google/gemini-cli", GeminiCLIVersion, "gemini"},
	{"@openai/codex", CodexVersion, "codex"},
	{"opencode-ai", OpenCodeVersion, "opencode"},
	{"@kilocode/cli", KiloVersion, "kilo"},
	{"@factory/cli-linux-x64", DroidVersion, ""},
	{"@github/copilot", CopilotVersion, "copilot"},
	{"@qwen-code/qwen-code", QwenVersion, "qwen"},
	{"cline", ClineVersion, "cline"},
	{"@anthropic-ai/claude-agent-sdk", AgentSDKVersion, ""},
	{"@continuedev/cli", ContinueVersion, "cn"},
}

func requireE2E(t *testing.T) {
	t.Helper()
	if os.Getenv("CTXHOOK_E2E") != "1" {
		t.Skip("set CTXHOOK_E2E=1 (make e2e) to run real-client tests")
	}
}

func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

var buildOnce sync.Once
var builtDir string
var buildErr error

// binaries builds ctxhook and testmcp once per test process, or takes them
// from CTXHOOK_E2E_BIN (make e2e builds them before going offline).
func binaries(t *testing.T) (ctxhook, testmcp string) {
	t.Helper()
	if dir := os.Getenv("CTXHOOK_E2E_BIN"); dir != "" {
		return filepath.Join(dir, "ctxhook"), filepath.Join(dir, "testmcp")
	}
	buildOnce.Do(func() {
		builtDir, buildErr = os.MkdirTemp("", "ctxhook-e2e-bin-")
		if buildErr != nil {
			return
		}
		for pkg, name := range map[string]string{"./host/cmd/ctxhook": "ctxhook", "./host/cmd/ctxhook-hook": "ctxhook-hook", "./e2e/testmcp": "testmcp"} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(builtDir, name), pkg)
			cmd.Dir = repoRoot(t)
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = &buildError{pkg, string(out)}
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(builtDir, "ctxhook"), filepath.Join(builtDir, "testmcp")
}

type buildError struct{ pkg, out string }

func (e *buildError) Error() string { return "build " + e.pkg + ": " + e.out }

func clientPath(pkg, version, bin string) (dir, path string) {
	_, file, _, _ := runtime.Caller(0)
	dir = filepath.Join(filepath.Dir(file), ".work", strings.NewReplacer("@", "", "/", "-").Replace(pkg)+"-"+version)
	return dir, filepath.Join(dir, "node_modules", ".bin", bin)
}

// npmInstall returns the path of a pinned client's binary, installing it
// into e2e/.work once when the network allows.
func npmInstall(t *testing.T, pkg, version, bin string) string {
	t.Helper()
	if err := npmInstallErr(pkg, version, bin); err != nil {
		t.Fatal(err)
	}
	_, path := clientPath(pkg, version, bin)
	return path
}

// npmInstallErr installs pkg@version into e2e/.work once. With bin "",
// the package itself is what is wanted (a library).
func npmInstallErr(pkg, version, bin string) error {
	dir, path := clientPath(pkg, version, bin)
	if bin == "" {
		path = filepath.Join(dir, "node_modules", pkg, "package.json")
	}
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "e2e: npm install %s@%s into %s (once)\n", pkg, version, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--prefix", dir, pkg+"@"+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm install %s@%s: %v\n%s", pkg, version, err, out)
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("npm installed no %s: %v", bin, err)
	}
	return nil
}

// run runs a command with env and a timeout, returning stdout and stderr.
func run(t *testing.T, timeout time.Duration, env []string, dir string, stdin []byte, name string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// isolatedEnv is a minimal environment with HOME at home and no XDG
// overrides, so ctxhook uses its real default paths under that HOME.
func isolatedEnv(home string, extra ...string) []string {
	// Daemons the hook client starts exit soon after the test.
	// The clients' own temp files (Claude Code's claude-<uid>, its socks
	// directory) go into the test's directory too, and go with it.
	tmp := filepath.Join(filepath.Dir(home), "tmp")
	os.MkdirAll(tmp, 0o700)
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TMPDIR=" + tmp, "CTXHOOK_DAEMON_IDLE=20s"}
	return append(env, extra...)
}

// mcpLog is one line the MCP test server logged.
type mcpLog struct {
	Dir    string          `json:"dir"`
	Server string          `json:"server"`
	Msg    json.RawMessage `json:"msg"`
}

// forEachLogged calls fn with every message of a TESTMCP_LOG file.
func forEachLogged(t *testing.T, path string, fn func(dir, server string, msg json.RawMessage)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l mcpLog
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			fn(l.Dir, l.Server, l.Msg)
		}
	}
}

// toolCall is a tools/call the MCP server received, with its answer.
type toolCall struct {
	Server string
	Name   string
	Args   map[string]any
	Result struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		Meta    map[string]any `json:"_meta"`
		IsError bool           `json:"isError"`
	}
}

func readToolCalls(t *testing.T, path string) []toolCall {
	t.Helper()
	type rpc struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	pending := map[string]*toolCall{}
	var calls []*toolCall
	forEachLogged(t, path, func(dir, server string, msg json.RawMessage) {
		var m rpc
		json.Unmarshal(msg, &m)
		key := server + string(m.ID)
		if dir == "in" && m.Method == "tools/call" {
			c := &toolCall{Server: server, Name: m.Params.Name, Args: m.Params.Arguments}
			pending[key] = c
			calls = append(calls, c)
		} else if dir == "out" && pending[key] != nil {
			json.Unmarshal(m.Result, &pending[key].Result)
			delete(pending, key)
		}
	})
	out := make([]toolCall, len(calls))
	for i, c := range calls {
		out[i] = *c
	}
	return out
}

// filesUnder returns every regular file below dir.
func filesUnder(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// checkRelayChain checks, on what the MCP servers logged, that they saw
// want calls and that every workflow step arrived with exactly the token the
// previous workflow call issued (in result _meta), and succeeded. It
// returns the number of steps.
func checkRelayChain(t *testing.T, calls []toolCall, want int) (steps int) {
	t.Helper()
	if len(calls) != want {
		t.Fatalf("the servers saw %d calls, want %d", len(calls), want)
	}
	var current string
	for i, c := range calls {
		if c.Server != "workflow" {
			continue
		}
		if c.Name == "step" {
			steps++
			if got, _ := c.Args["session_token"].(string); got != current || got == "" {
				t.Errorf("call %d reached the server with token %.12q…, want %.12q…", i, got, current)
			}
			if c.Result.IsError {
				t.Errorf("call %d failed: %+v", i, c.Result.Content)
			}
		}
		current, _ = c.Result.Meta["session_token"].(string)
		if len(current) < 400 {
			t.Fatalf("call %d: the server issued a short token %q", i, current)
		}
	}
	return steps
}

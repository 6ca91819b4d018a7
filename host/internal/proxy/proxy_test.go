package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/cli"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/bigpayload"
	"github.com/ctxhook/ctxhook/internal/testcache"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary plays three roles: the test, the proxy (via cli.Main),
// and an MCP server built with the official Go SDK, which the proxy runs.
func TestMain(m *testing.M) {
	if os.Getenv("PROXY_TEST_ROLE") == "" {
		// Proxies decide in-process unless a test asks for the daemon
		// (CTXHOOK_NO_DAEMON= in its environment): a daemon outlives the
		// proxy that started it, and stores after it has gone.
		os.Setenv("CTXHOOK_NO_DAEMON", "1")
	}
	switch os.Getenv("PROXY_TEST_ROLE") {
	case "proxy":
		os.Exit(cli.Main(os.Args[1:], cli.IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, os.Getenv))
	case "server":
		serve()
		os.Exit(0)
	}
	code := m.Run()
	if faultyPlugin.path != "" {
		os.RemoveAll(filepath.Dir(faultyPlugin.path)) // built once for every test
	}
	os.Exit(code)
}

// ---- the MCP server (official Go SDK) ----

type stepArgs struct {
	N            int    `json:"n"`
	SessionToken string `json:"session_token,omitempty"`
	// Mark is put in the result's text (a fault trigger); Pad adds that
	// many bytes to it.
	Mark string `json:"mark,omitempty"`
	Pad  int    `json:"pad,omitempty"`
	// Issues adds a tracker's JSON search result of about that many
	// bytes, secrets in it (bigpayload.Issues).
	Issues int `json:"issues,omitempty"`
}
type bigArgs struct {
	Bytes int    `json:"bytes"`
	Tail  string `json:"tail,omitempty"` // the result's last word, after a space
}
type issuesArgs struct {
	Bytes  int    `json:"bytes"`
	Marker string `json:"marker"`
}
type slowArgs struct {
	Millis int `json:"millis"`
}
type none struct{}

func serve() {
	newServer().Run(context.Background(), &mcp.StdioTransport{})
}

// newServer builds the test server with the official Go SDK.
func newServer() *mcp.Server {
	var mu sync.Mutex
	var token string
	issued := 0
	next := func() string {
		issued++
		return fmt.Sprintf("wfs_%04d_", issued) + strings.Repeat(strconv.Itoa(issued%10), 470)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "sdk-workflow", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "start_session"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		defer mu.Unlock()
		token = next()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "session started"}},
			Meta: mcp.Meta{"session_token": token}}, nil, nil
	})
	step := func(ctx context.Context, req *mcp.CallToolRequest, a stepArgs) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		defer mu.Unlock()
		if a.SessionToken != token || token == "" {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "wrong session token"}}}, nil, nil
		}
		token = next()
		text := fmt.Sprintf("step %d done: check WF-%03d passed %s", a.N, a.N, a.Mark) + strings.Repeat("p", a.Pad)
		if a.Issues > 0 {
			text += " " + bigpayload.Issues(a.Issues, fmt.Sprintf("step%d", a.N))
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}},
			Meta: mcp.Meta{"session_token": token}}, nil, nil
	}
	mcp.AddTool(s, &mcp.Tool{Name: "step"}, step)
	// mstep is step for MCP 2026-07-28 over HTTP: its token argument is
	// mirrored into the header Mcp-Param-Session-Token, which the server
	// checks against the body.
	mcp.AddTool(s, &mcp.Tool{Name: "mstep", InputSchema: map[string]any{"type": "object", "properties": map[string]any{
		"n":             map[string]any{"type": "integer"},
		"session_token": map[string]any{"type": "string", "x-mcp-header": "Session-Token"},
	}}}, step)
	// confirm asks the client to confirm before it runs step: under
	// 2026-07-28 an interim result (input_required) and a retry of the
	// call; under older revisions an elicitation request (the SDK's).
	mcp.AddTool(s, &mcp.Tool{Name: "confirm"}, func(ctx context.Context, req *mcp.CallToolRequest, a stepArgs) (*mcp.CallToolResult, any, error) {
		if len(req.Params.InputResponses) == 0 {
			return &mcp.CallToolResult{RequestState: "confirm-state",
				InputRequests: mcp.InputRequestMap{"go": &mcp.ElicitParams{Message: "Run the step?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}}}}, nil, nil
		}
		return step(ctx, req, a)
	})
	mcp.AddTool(s, &mcp.Tool{Name: "big"}, func(ctx context.Context, req *mcp.CallToolRequest, a bigArgs) (*mcp.CallToolResult, any, error) {
		text := strings.Repeat("x", a.Bytes)
		if a.Tail != "" {
			text = text[:max(0, a.Bytes-len(a.Tail)-1)] + " " + a.Tail
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "issues"}, func(ctx context.Context, req *mcp.CallToolRequest, a issuesArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: bigpayload.Issues(a.Bytes, a.Marker)}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest, a slowArgs) (*mcp.CallToolResult, any, error) {
		if pt := req.Params.GetProgressToken(); pt != nil {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: pt, Progress: 1, Total: 2})
		}
		time.Sleep(time.Duration(a.Millis) * time.Millisecond)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slow done"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "pid"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(os.Getpid())}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "crash"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		os.Exit(3)
		return nil, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "hang"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		time.Sleep(time.Hour)
		return nil, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "garbage"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		os.Stdout.WriteString("this is not JSON-RPC\n")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "after garbage"}}}, nil, nil
	})
	s.AddResource(&mcp.Resource{URI: "mem://readme", Name: "readme", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://readme", Text: "hello resource"}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello prompt"}}}}, nil
	})
	return s
}

// ---- the client side ----

type fixture struct {
	home     string
	session  *mcp.ClientSession
	stderr   *lockedBuffer
	progress atomic.Int32
	proc     *exec.Cmd
	closed   bool
}

// close ends the client session and waits for the proxy process, which
// must exit on its own once its stdin is closed.
func (f *fixture) close(t *testing.T) {
	if f.closed {
		return
	}
	f.closed = true
	f.session.Close()
	done := make(chan error, 1)
	go func() { done <- f.proc.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		f.proc.Process.Kill()
		t.Errorf("the proxy did not exit after its client closed stdin")
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// connect starts the proxy (as a real process) in front of the SDK server
// and connects the official SDK client to it.
func connect(t *testing.T, timeout string) *fixture {
	t.Helper()
	return connectWith(t, []string{"--timeout", timeout, "--", "/usr/bin/env", "PROXY_TEST_ROLE=server", os.Args[0]}, nil)
}

// connectWith starts the proxy with the given arguments after --name.
func connectWith(t *testing.T, proxyArgs, extraEnv []string) *fixture {
	t.Helper()
	return connectVersion(t, proxyArgs, extraEnv, "")
}

// connectVersion is connectWith with the client speaking MCP revision
// version ("": the SDK's newest, 2026-07-28).
func connectVersion(t *testing.T, proxyArgs, extraEnv []string, version string) *fixture {
	t.Helper()
	f := &fixture{home: t.TempDir(), stderr: &lockedBuffer{}}
	os.MkdirAll(filepath.Join(f.home, "config"), 0o700)
	os.WriteFile(filepath.Join(f.home, "config", "config.toml"), []byte("[servers.wf]\nrelay = true\nproxy = true\n"), 0o600)
	testcache.LinkWasm(f.home)

	cmd := exec.Command(os.Args[0], append([]string{"proxy", "--name", "wf", "--session", "test-session"}, proxyArgs...)...)
	cmd.Env = append(append(os.Environ(), "PROXY_TEST_ROLE=proxy", "CTXHOOK_HOME="+f.home), extraEnv...)
	cmd.Stderr = f.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "sdk-client", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) { f.progress.Add(1) },
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	toProxy, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	fromProxy, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// 256 MiB frames: a 16 MiB message plus its envelope exceeds the SDK's
	// default limit (which CommandTransport does not expose), and a 64 MiB
	// JSON document in a text block is longer still once escaped.
	s, err := client.Connect(ctx, &mcp.IOTransport{Reader: fromProxy, Writer: toProxy, MaxLineLength: 256 << 20}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, f.stderr)
	}
	f.session = s
	f.proc = cmd
	t.Cleanup(func() { f.close(t) })
	return f
}

func (f *fixture) call(t *testing.T, name string, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return f.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

func text(r *mcp.CallToolResult) string {
	b, _ := json.Marshal(r)
	return string(b)
}

func TestRelayAndPassthrough(t *testing.T) {
	f := connect(t, "10s")
	ctx := context.Background()
	r, err := f.call(t, "start_session", map[string]any{})
	if err != nil || strings.Contains(text(r), "wfs_") {
		t.Fatalf("start_session: %v, result shows the token: %s", err, text(r))
	}
	// The client never sends a token: every step must still succeed, and no
	// result shows one.
	for n := 1; n <= 5; n++ {
		r, err := f.call(t, "step", map[string]any{"n": n})
		if err != nil || r.IsError {
			t.Fatalf("step %d: %v %s\nproxy stderr: %s", n, err, text(r), f.stderr)
		}
		if strings.Contains(text(r), "wfs_") {
			t.Fatalf("step %d shows the token: %s", n, text(r))
		}
	}
	// Everything else passes through.
	if err := f.session.Ping(ctx, nil); err != nil {
		t.Errorf("ping: %v", err)
	}
	if res, err := f.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://readme"}); err != nil || res.Contents[0].Text != "hello resource" {
		t.Errorf("resources/read: %v %+v", err, res)
	}
	if res, err := f.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"}); err != nil || len(res.Messages) != 1 {
		t.Errorf("prompts/get: %v %+v", err, res)
	}
	if res, err := f.session.ListTools(ctx, nil); err != nil || len(res.Tools) < 8 {
		t.Errorf("tools/list: %v", err)
	}
	// Every result is searchable, and the store holds no token.
	f.close(t)
	st, err := store.Open(filepath.Join(f.home, "state", "ctxhook.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	hits, err := st.Search(store.ParseQuery("WF-004"), store.SearchOptions{})
	if err != nil || len(hits) != 1 || hits[0].Event.Tool != "mcp__wf__step" {
		t.Fatalf("search WF-004: %+v %v", hits, err)
	}
	stats, _ := st.Stats("test-session")
	if stats.Events != 6 || stats.Tallies["tokens_relayed"] != 5 || stats.Tallies["tokens_captured"] != 6 {
		t.Errorf("stats: %+v", stats)
	}
	for _, suffix := range []string{"", "-wal"} {
		b, _ := os.ReadFile(filepath.Join(f.home, "state", "ctxhook.db"+suffix))
		if strings.Contains(string(b), "wfs_0003_") {
			t.Errorf("a relay token is stored in ctxhook.db%s", suffix)
		}
	}
}

func TestConcurrentCallsAndProgress(t *testing.T) {
	f := connect(t, "10s")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	start := time.Now()
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			r, err := f.session.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"millis": 500},
				Meta: mcp.Meta{"progressToken": fmt.Sprintf("p-%d", i)}})
			if err == nil && !strings.Contains(text(r), "slow done") {
				err = errors.New(text(r))
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	// Eight 500 ms calls in flight together, not one after another.
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("8 concurrent calls took %v: requests were serialised", d)
	}
	if f.progress.Load() != 8 {
		t.Errorf("progress notifications passed through: %d, want 8", f.progress.Load())
	}
}

// TestLargeMessage: a 16 MiB result goes through whole when its server's
// results are not shaped; shaped (the default), the client gets its head
// and the event's key, and the store holds it to its last byte. Both
// decide through the daemon, as installed: in-process, where the guest
// must stay interruptible, a 16 MiB decision takes seconds more.
func TestLargeMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("messages of up to 64 MiB (-short)")
	}
	const size = 16 << 20
	viaDaemon := func(t *testing.T) *fixture {
		f := connectWith(t, []string{"--timeout", "60s", "--", "/usr/bin/env", "PROXY_TEST_ROLE=server", os.Args[0]}, []string{"CTXHOOK_NO_DAEMON="})
		t.Cleanup(func() { stopDaemons(t, f.home) })
		waitDaemon(t, f.home)
		return f
	}
	t.Run("unshaped", func(t *testing.T) {
		f := viaDaemon(t)
		os.WriteFile(filepath.Join(f.home, "config", "config.toml"), []byte("[servers.wf]\nrelay = true\nproxy = true\nshape_bytes = -1\n"), 0o600)
		r, err := f.call(t, "big", map[string]any{"bytes": size})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(r.Content[0].(*mcp.TextContent).Text); got != size {
			t.Fatalf("got %d bytes, want %d", got, size)
		}
	})
	t.Run("shaped", func(t *testing.T) {
		f := viaDaemon(t)
		r, err := f.call(t, "big", map[string]any{"bytes": size, "tail": "lastwordmarker"})
		if err != nil {
			t.Fatal(err)
		}
		got := r.Content[0].(*mcp.TextContent).Text
		if len(got) >= size || !strings.Contains(got, "ctxhook") {
			t.Fatalf("a 16 MiB result was not shaped: %d bytes, head %.200q", len(got), got)
		}
		f.close(t)
		storedWhole(t, f.home, "lastwordmarker", size)
		// The ledger counts what the client was spared (it counted 0).
		st, err := store.Open(filepath.Join(f.home, "state", "ctxhook.db"), store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		stats, err := st.Stats("")
		if err != nil || stats.BytesKeptOut < int64(size-len(got)-1024) || stats.BytesKeptOut > 2*size {
			t.Errorf("bytes_kept_out %d after a %d-byte result was shaped to %d (%v)", stats.BytesKeptOut, size, len(got), err)
		}
	})
}

func TestServerCrash(t *testing.T) {
	f := connect(t, "10s")
	start := time.Now()
	_, err := f.call(t, "crash", map[string]any{})
	if err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("crash: err = %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("error took %v", time.Since(start))
	}
	// Later requests fail at once instead of hanging.
	if err := f.session.Ping(context.Background(), nil); err == nil {
		t.Errorf("ping after the crash succeeded")
	}
	if !f.stderrSays("exited") {
		t.Errorf("stderr does not say the server exited: %q", f.stderr)
	}
}

func TestServerHang(t *testing.T) {
	f := connect(t, "1s")
	start := time.Now()
	_, err := f.call(t, "hang", map[string]any{})
	if err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("hang: err = %v", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("error took %v", d)
	}
	// The proxy and server still work for other calls.
	if r, err := f.call(t, "pid", map[string]any{}); err != nil || r.IsError {
		t.Errorf("call after a timeout: %v", err)
	}
}

func TestServerGarbage(t *testing.T) {
	f := connect(t, "10s")
	r, err := f.call(t, "garbage", map[string]any{})
	if err != nil || !strings.Contains(text(r), "after garbage") {
		t.Fatalf("garbage: %v %s", err, text(r))
	}
	if !f.stderrSays("not JSON-RPC") {
		t.Errorf("stderr does not report the garbage: %q", f.stderr)
	}
}

// stderrSays reports whether the proxy's stderr holds want, waiting for
// it a while: the proxy writes the line before the answer that follows,
// but on another pipe, and a loaded machine copied the answer to the
// client before the line reached the buffer.
func (f *fixture) stderrSays(want string) bool {
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if strings.Contains(f.stderr.String(), want) {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// Closing the client ends the proxy and the server: no process is left.
func TestNoOrphans(t *testing.T) {
	f := connect(t, "10s")
	r, err := f.call(t, "pid", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(r.Content[0].(*mcp.TextContent).Text)
	if pid == 0 {
		t.Fatal("no pid")
	}
	f.close(t)
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("server process %d still alive after the client closed", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestHTTPUpstream: the proxy in front of a streamable-HTTP server (the
// official Go SDK's handler), sending a header whose secret comes from the
// environment. The relay works as on stdio.
func TestHTTPUpstream(t *testing.T) {
	srv := newServer()
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var authorized atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer env-secret-123" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		authorized.Add(1)
		handler.ServeHTTP(w, r)
	}))
	defer hs.Close()

	f := connectWith(t, []string{"--url", hs.URL, "--header", "Authorization: Bearer ${PROXY_TEST_SECRET}"},
		[]string{"PROXY_TEST_SECRET=env-secret-123"})
	defer f.close(t) // before hs.Close: the proxy holds the server's event stream open
	if r, err := f.call(t, "start_session", map[string]any{}); err != nil || strings.Contains(text(r), "wfs_") {
		t.Fatalf("start_session: %v %s", err, text(r))
	}
	for n := 1; n <= 3; n++ {
		r, err := f.call(t, "step", map[string]any{"n": n})
		if err != nil || r.IsError || strings.Contains(text(r), "wfs_") {
			t.Fatalf("step %d: %v %s\n%s", n, err, text(r), f.stderr)
		}
	}
	if err := f.session.Ping(context.Background(), nil); err != nil {
		t.Errorf("ping: %v", err)
	}
	if authorized.Load() < 5 {
		t.Errorf("only %d authorized requests reached the server", authorized.Load())
	}
	if strings.Contains(f.stderr.String(), "env-secret-123") {
		t.Errorf("the header secret reached stderr")
	}
}

// A server that refuses the proxy's requests gives the client an error,
// not a hang.
func TestHTTPUpstreamRefused(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	defer hs.Close()
	f := &fixture{home: t.TempDir(), stderr: &lockedBuffer{}}
	cmd := exec.Command(os.Args[0], "proxy", "--name", "wf", "--url", hs.URL)
	cmd.Env = append(os.Environ(), "PROXY_TEST_ROLE=proxy", "CTXHOOK_HOME="+f.home)
	cmd.Stderr = f.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("connect err = %v", err)
	}
}

// TestSameSessionTwoProxies: two proxies given one --session (one agent
// session, two servers) name their messages apart: each result is
// stored, none taken for the other's (the store keeps one event per
// request name, and the daemon answers a name it is deciding once).
func TestSameSessionTwoProxies(t *testing.T) {
	a := connect(t, "10s")
	b := connectWith(t, []string{"--timeout", "10s", "--", "/usr/bin/env", "PROXY_TEST_ROLE=server", os.Args[0]}, []string{"CTXHOOK_HOME=" + a.home})
	for _, f := range []*fixture{a, b} {
		if r, err := f.call(t, "start_session", map[string]any{}); err != nil || r.IsError {
			t.Fatalf("start_session: %v", err)
		}
	}
	a.close(t)
	b.close(t)
	st, err := store.Open(filepath.Join(a.home, "state", "ctxhook.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if s, _ := st.Stats("test-session"); s.Events != 2 {
		t.Errorf("%d events stored, want 2 (one per proxy)", s.Events)
	}
}

// TestNewServerProcess: a second proxy under the same --session starts the
// server anew, and the token the first one captured is unknown to it. With
// on_resume "keep" it is sent once, rejected, retired at once (the result
// tells the model so), and the next call goes without it; with "drop" the
// proxy's word that the process is new retires it before any call.
func TestNewServerProcess(t *testing.T) {
	for _, onResume := range []string{"keep", "drop"} {
		t.Run(onResume, func(t *testing.T) {
			a := connect(t, "10s")
			if r, err := a.call(t, "start_session", map[string]any{}); err != nil || r.IsError {
				t.Fatalf("start_session: %v %s", err, text(r))
			}
			if r, err := a.call(t, "step", map[string]any{"n": 1}); err != nil || r.IsError {
				t.Fatalf("step 1: %v %s", err, text(r))
			}
			a.close(t)
			cfg := "[servers.wf]\nrelay = true\nproxy = true\non_resume = \"" + onResume + "\"\ntoken_errors = [\"wrong session token\"]\n"
			os.WriteFile(filepath.Join(a.home, "config", "config.toml"), []byte(cfg), 0o600)
			b := connectWith(t, []string{"--timeout", "10s", "--", "/usr/bin/env", "PROXY_TEST_ROLE=server", os.Args[0]}, []string{"CTXHOOK_HOME=" + a.home})
			const told = "has to be started again"
			r, err := b.call(t, "step", map[string]any{"n": 2})
			if err != nil || !r.IsError {
				t.Fatalf("step 2 in a new server process: %v %s", err, text(r))
			}
			if got := strings.Contains(text(r), told); got != (onResume == "keep") {
				t.Errorf("step 2: the model told of a rejected token %v, want %v: %s", got, onResume == "keep", text(r))
			}
			r, err = b.call(t, "step", map[string]any{"n": 3})
			if err != nil || !r.IsError || strings.Contains(text(r), told) {
				t.Errorf("step 3 went with the rejected token again (or did not fail without one): %v %s", err, text(r))
			}
			if r, err := b.call(t, "start_session", map[string]any{}); err != nil || r.IsError {
				t.Fatalf("start_session: %v %s", err, text(r))
			}
			if r, err := b.call(t, "step", map[string]any{"n": 4}); err != nil || r.IsError {
				t.Errorf("step 4 after a new session: %v %s\nstderr: %s", err, text(r), b.stderr)
			}
		})
	}
}

package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// revisions are the MCP revisions the proxy is tested under: 2026-07-28
// (no initialize: server/discover, and each request names its revision
// in _meta) and the 2025 ones (initialize).
var revisions = []string{"2026-07-28", "2025-11-25", "2025-06-18"}

// TestRevisions: under each revision, on stdio and over HTTP, the
// official SDK client reaches the SDK server through the proxy with the
// revision it asked for; the relay injects the token, the client never
// sees it; a call the server first answers by asking for input
// (2026-07-28: an interim result and a retry; older: an elicitation) gets
// its token on the retry and is recorded once, as its final answer. Over
// HTTP under 2026-07-28 every request carries the headers that mirror
// its body, the injected token's Mcp-Param-Session-Token included (the
// server refuses a request whose headers and body differ), and under the
// 2025 revisions none.
func TestRevisions(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev+"/stdio", func(t *testing.T) {
			f := connectVersion(t, []string{"--timeout", "20s", "--", "/usr/bin/env", "PROXY_TEST_ROLE=server", os.Args[0]}, nil, rev)
			if got := f.session.InitializeResult().ProtocolVersion; got != rev {
				t.Fatalf("the client speaks %s through the proxy, asked for %s", got, rev)
			}
			runWorkflow(t, f, "step")
			f.close(t)
			checkConfirmedOnce(t, f.home)
		})
		for _, listed := range []bool{false, true} {
			name := rev + "/http"
			if listed {
				name += "/tools-listed-first"
			}
			t.Run(name, func(t *testing.T) { testHTTPRevision(t, rev, listed) })
		}
	}
}

// testHTTPRevision runs the workflow over HTTP under rev. listed: the
// client lists the tools first, so the proxy knows mstep's header
// annotation from the start; else the server refuses the first mstep for
// its missing header, the proxy lists the tools itself, and sends it again.
func testHTTPRevision(t *testing.T, rev string, listed bool) {
	srv := newServer()
	// The SDK serves 2026-07-28 over HTTP statelessly only.
	opts := &mcp.StreamableHTTPOptions{Stateless: rev >= "2026-07-28"}
	sh := &strictHTTP{handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts)}
	hs := httptest.NewServer(sh)
	defer hs.Close()
	f := connectVersion(t, []string{"--timeout", "20s", "--url", hs.URL}, nil, rev)
	defer f.close(t) // before hs.Close: the proxy may hold a stream open
	if got := f.session.InitializeResult().ProtocolVersion; got != rev {
		t.Fatalf("the client speaks %s through the proxy, asked for %s", got, rev)
	}
	if listed {
		if _, err := f.session.ListTools(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	runWorkflow(t, f, "mstep")
	f.close(t)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	msteps, refused := 0, 0
	for i, h := range sh.calls {
		if sh.status[i] != http.StatusOK {
			refused++
			continue
		}
		var body struct {
			Params struct {
				Name      string `json:"name"`
				Arguments struct {
					SessionToken string `json:"session_token"`
				} `json:"arguments"`
			} `json:"params"`
		}
		json.Unmarshal(sh.bodies[i], &body)
		if rev < "2026-07-28" {
			if h.Get("Mcp-Method") != "" || h.Get("Mcp-Param-Session-Token") != "" {
				t.Errorf("%s: mirrored headers sent under %s: %v", body.Params.Name, rev, h)
			}
			continue
		}
		if h.Get("Mcp-Method") != "tools/call" || h.Get("Mcp-Name") != body.Params.Name {
			t.Errorf("%s: Mcp-Method %q, Mcp-Name %q", body.Params.Name, h.Get("Mcp-Method"), h.Get("Mcp-Name"))
		}
		if body.Params.Name != "mstep" {
			continue
		}
		msteps++
		if tok := body.Params.Arguments.SessionToken; !strings.HasPrefix(tok, "wfs_") || h.Get("Mcp-Param-Session-Token") != tok {
			t.Errorf("mstep: the injected token %.12q… is mirrored as %.12q…", tok, h.Get("Mcp-Param-Session-Token"))
		}
	}
	if rev >= "2026-07-28" && msteps != 3 {
		t.Errorf("%d mstep calls reached the server, want 3", msteps)
	}
	if want := map[bool]int{false: 1, true: 0}[listed]; rev >= "2026-07-28" && refused != want {
		t.Errorf("%d tools/call refused by the server, want %d", refused, want)
	} else if rev < "2026-07-28" && refused != 0 {
		t.Errorf("%d tools/call refused under %s", refused, rev)
	}
	if rev >= "2026-07-28" {
		for _, m := range sh.methods {
			if m == "" {
				t.Errorf("a request or notification without Mcp-Method under %s (methods seen: %v)", rev, sh.methods)
				break
			}
		}
	}
	checkConfirmedOnce(t, f.home)
}

// TestRevisionFallback: a client asking for 2026-07-28 of a server that
// only has the 2025 revisions (the SDK's stateful HTTP handler) falls back
// to initialize through the proxy, and the relay works under what they
// agreed.
func TestRevisionFallback(t *testing.T) {
	srv := newServer()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	f := connectVersion(t, []string{"--timeout", "20s", "--url", hs.URL}, nil, "2026-07-28")
	defer f.close(t)
	if got := f.session.InitializeResult().ProtocolVersion; got != "2025-11-25" {
		t.Fatalf("agreed on %s, want the server's 2025-11-25", got)
	}
	runWorkflow(t, f, "mstep")
}

// checkConfirmedOnce: the call that first asked for input is recorded
// once, with its final answer.
func checkConfirmedOnce(t *testing.T, home string) {
	t.Helper()
	n := 0
	for _, tool := range storedTools(t, home) {
		if tool == "mcp__wf__confirm" {
			n++
		}
	}
	if n != 1 || !searchable(t, home, "CONFIRMED4") {
		t.Errorf("confirm recorded %d times (want once), its answer searchable: %v", n, searchable(t, home, "CONFIRMED4"))
	}
}

// strictHTTP serves the SDK server over streamable HTTP as a strict
// 2026-07-28 server does: a request whose _meta names 2026-07-28 without
// the MCP-Protocol-Version header is refused (the SDK checks the mirrored
// headers against the body only when that header says so). It records
// each tools/call's headers.
type strictHTTP struct {
	handler http.Handler
	mu      sync.Mutex
	calls   []http.Header
	bodies  [][]byte
	status  []int // of each tools/call
	methods []string
}

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) { w.code = code; w.ResponseWriter.WriteHeader(code) }
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *strictHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var m struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	json.Unmarshal(body, &m)
	if v, _ := m.Params.Meta["io.modelcontextprotocol/protocolVersion"].(string); v >= "2026-07-28" && r.Header.Get("MCP-Protocol-Version") != v {
		http.Error(w, "MCP-Protocol-Version header missing or not the body's "+v, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	if m.Method != "" {
		s.methods = append(s.methods, r.Header.Get("Mcp-Method"))
	}
	s.mu.Unlock()
	sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
	s.handler.ServeHTTP(sw, r)
	if m.Method == "tools/call" {
		s.mu.Lock()
		s.calls = append(s.calls, r.Header.Clone())
		s.bodies = append(s.bodies, body)
		s.status = append(s.status, sw.code)
		s.mu.Unlock()
	}
}

// storedTools lists the tools of the events stored under home.
func storedTools(t *testing.T, home string) []string {
	t.Helper()
	st, err := store.Open(filepath.Join(home, "state", "ctxhook.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var tools []string
	for id := int64(1); ; id++ {
		e, err := st.Event(id)
		if err != nil {
			return tools
		}
		tools = append(tools, e.Tool)
	}
}

// runWorkflow starts a session, runs steps with the tool step (or mstep),
// then confirm: every result without its token.
func runWorkflow(t *testing.T, f *fixture, step string) {
	t.Helper()
	if r, err := f.call(t, "start_session", map[string]any{}); err != nil || r.IsError || strings.Contains(text(r), "wfs_") {
		t.Fatalf("start_session: %v %s\n%s", err, text(r), f.stderr)
	}
	for n := 1; n <= 3; n++ {
		r, err := f.call(t, step, map[string]any{"n": n})
		if err != nil || r.IsError || strings.Contains(text(r), "wfs_") {
			t.Fatalf("%s %d: %v %s\n%s", step, n, err, text(r), f.stderr)
		}
	}
	r, err := f.call(t, "confirm", map[string]any{"n": 4, "mark": "CONFIRMED4"})
	if err != nil || r.IsError || !strings.Contains(text(r), "CONFIRMED4") || strings.Contains(text(r), "wfs_") {
		t.Fatalf("confirm: %v %s\n%s", err, text(r), f.stderr)
	}
}

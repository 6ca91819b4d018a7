package proxy_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/internal/homeprocs"
)

// answers reads the proxy's stdout until it has an answer for every id in
// want, or until the wait ends; it returns every line read, by id ("" for
// lines without one).
func answers(t *testing.T, stdout io.Reader, want []string, wait time.Duration) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		for sc.Scan() {
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			json.Unmarshal(sc.Bytes(), &m)
			got[string(m.ID)] = append(got[string(m.ID)], sc.Text())
			all := true
			for _, id := range want {
				all = all && len(got[id]) > 0
			}
			if all {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatalf("no answer for every one of %v within %v; got %v", want, wait, got)
	}
	return got
}

// TestServerScalarsDropped: valid JSON from the server that is not a
// JSON-RPC message (a number, a string, null, an array of numbers) does
// not reach the client; the answer after it does.
func TestServerScalarsDropped(t *testing.T) {
	cmd, stdin, stdout, stderr, _ := startRawProxy(t)
	defer func() { stdin.Close(); cmd.Wait() }()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":7,"method":"scalars/echo"}`+"\n")
	got := answers(t, stdout, []string{"7"}, 15*time.Second)
	if len(got) != 1 || !strings.Contains(got["7"][0], `"after":"scalars"`) {
		t.Fatalf("the client got %v, want only the answer to 7\nstderr: %s", got, stderr.String())
	}
}

// TestServerAnswerTooLong: an answer over --max-message becomes an error
// for its request, and the proxy's memory stays near the limit (a 64 MiB
// line through a 2 MiB limit), while the session goes on.
func TestServerAnswerTooLong(t *testing.T) {
	cmd, stdin, stdout, stderr, _ := startRawProxy(t, "--max-message", "2")
	defer func() { stdin.Close(); cmd.Wait() }()
	// The peak before the big line is the proxy's own start (runtime, the
	// test binary's pages, a first answer), which grows with the machine's
	// load; what the limit bounds is how far the 64 MiB line raises it. A
	// proxy that held the line would add at least 64 MiB; reading it in
	// bounded pieces adds about 15 (pages of code first touched, buffers
	// not yet collected), whatever the line's size.
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":0,"method":"huge/echo","params":{"bytes":1000}}`+"\n")
	answers(t, stdout, []string{"0"}, 15*time.Second)
	_, before := homeprocs.Memory(cmd.Process.Pid)
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"huge/echo","params":{"bytes":67108864}}`+"\n")
	got := answers(t, stdout, []string{"1"}, 60*time.Second)
	if !strings.Contains(got["1"][0], "over the proxy's limit of 2 MiB") || !strings.Contains(got["1"][0], "-32003") {
		t.Fatalf("answer to the 64 MiB result: %.300s\nstderr: %s", got["1"][0], stderr.String())
	}
	_, peak := homeprocs.Memory(cmd.Process.Pid)
	t.Logf("proxy peak RSS %d MiB before the 64 MiB line, %d MiB after", before>>20, peak>>20)
	if peak-before > 32<<20 {
		t.Errorf("a 64 MiB line through a 2 MiB limit raised the proxy's peak RSS by %d MiB (from %d MiB)", (peak-before)>>20, before>>20)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"huge/echo","params":{"bytes":1000}}`+"\n")
	got = answers(t, stdout, []string{"2"}, 15*time.Second)
	if !strings.Contains(got["2"][0], `"result"`) {
		t.Fatalf("the next answer: %.300s", got["2"][0])
	}
	// A client request over the limit never reaches the server.
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":3,"method":"echo","params":{"x":"`+strings.Repeat("b", 3<<20)+`"}}`+"\n")
	got = answers(t, stdout, []string{"3"}, 15*time.Second)
	if !strings.Contains(got["3"][0], "the request is 3 MiB, over the proxy's limit of 2 MiB") {
		t.Fatalf("answer to a 3 MiB request: %.300s", got["3"][0])
	}
}

// TestServerExitsGrandchildKeepsStdout: a server that exits while
// something it started keeps its stdout open does not hang the proxy:
// the client's requests get errors within seconds.
func TestServerExitsGrandchildKeepsStdout(t *testing.T) {
	cmd, stdin, stdout, stderr := startProxyOf(t, []string{"--", "/bin/sh", "-c", "sleep 60 & exit 0"})
	defer func() { stdin.Close(); cmd.Wait() }()
	time.Sleep(200 * time.Millisecond)
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`+"\n")
	got := answers(t, stdout, []string{"1"}, 10*time.Second)
	if !strings.Contains(got["1"][0], "exited") {
		t.Fatalf("answer: %s\nstderr: %s", got["1"][0], stderr.String())
	}
}

// TestHTTPRedirectAndErrorBody: the proxy's own headers do not follow a
// redirect to another host, and an error page that echoes them, or holds
// a secret of its own, reaches neither the client nor stderr with them:
// the plugin redacts it (abi.ProxyError).
func TestHTTPRedirectAndErrorBody(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	const other = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" // a GitHub token in the page itself
	seen := make(chan http.Header, 1)
	otherHost := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		http.Error(w, "you sent X-Api-Key: "+r.Header.Get("X-Api-Key")+" and "+key+"; the deploy token "+other+" was revoked", http.StatusForbidden)
	}))
	defer otherHost.Close()
	// Another host for the same server: 127.0.0.1 and localhost differ.
	target := strings.Replace(otherHost.URL, "127.0.0.1", "localhost", 1) + "/mcp"
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
	}))
	defer first.Close()
	cmd := exec.Command(os.Args[0], "proxy", "--name", "raw", "--url", first.URL+"/mcp", "--header", "X-Api-Key: "+key)
	cmd.Env = append(os.Environ(), "PROXY_TEST_ROLE=proxy", "CTXHOOK_HOME="+t.TempDir())
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`+"\n")
	got := answers(t, stdout, []string{"1"}, 15*time.Second)
	h := <-seen
	if v := h.Get("X-Api-Key"); v != "" {
		t.Errorf("X-Api-Key was sent to another host on a redirect: %q", v)
	}
	if strings.Contains(got["1"][0], key) || strings.Contains(got["1"][0], other) || !strings.Contains(got["1"][0], "HTTP 403") {
		t.Errorf("the client's error: %s", got["1"][0])
	}
	stdin.Close()
	cmd.Wait()
	if strings.Contains(stderr.String(), key) || strings.Contains(stderr.String(), other) {
		t.Errorf("a secret reached stderr: %s", stderr.String())
	}
}

package proxy_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// rawServer is a wire-level MCP peer: it logs every line it receives and
// answers requests whose method starts with "echo" with the message it
// got; "trigger" makes it send requests and notifications of its own to the
// client (sampling, elicitation, roots, list_changed).
func rawServer() {
	logf, _ := os.OpenFile(os.Getenv("RAW_LOG"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	write := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	for in.Scan() {
		line := append([]byte(nil), in.Bytes()...)
		logf.Write(append(line, '\n'))
		var msgs []map[string]any
		if line[0] == '[' {
			json.Unmarshal(line, &msgs)
		} else {
			var m map[string]any
			json.Unmarshal(line, &m)
			msgs = []map[string]any{m}
		}
		var replies []any
		for _, m := range msgs {
			method, _ := m["method"].(string)
			id, hasID := m["id"]
			switch {
			case method == "trigger":
				write(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage", "params": map[string]any{"maxTokens": 5}})
				write(map[string]any{"jsonrpc": "2.0", "id": "s2", "method": "elicitation/create", "params": map[string]any{"message": "ok?"}})
				write(map[string]any{"jsonrpc": "2.0", "id": "s3", "method": "roots/list"})
				write(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
				replies = append(replies, map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{}})
			case hasID && (method == "tools/call" || strings.HasPrefix(method, "broken/")) && strings.Contains(string(line), `"broken`):
				// An answer with the right id whose JSON is broken: cut
				// short, or with a bad literal after a whole result.
				idb, _ := json.Marshal(id)
				if strings.Contains(string(line), `"broken-cut"`) {
					out.WriteString(`{"jsonrpc":"2.0","id":` + string(idb) + `,"result":{"content":[{"type":"text","text":"cut` + "\n")
				} else {
					out.WriteString(`{"jsonrpc":"2.0","id":` + string(idb) + `,"result":{"content":[{"type":"text","text":"a"}]},"x":tru}` + "\n")
				}
				out.Flush()
			case hasID && method == "scalars/echo":
				// Valid JSON that is not a JSON-RPC message.
				out.WriteString("123\n\"str\"\nnull\n[1,2]\n")
				replies = append(replies, map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"after": "scalars"}})
			case hasID && method == "huge/echo":
				// An answer of params.bytes bytes, its id first.
				n, _ := m["params"].(map[string]any)["bytes"].(float64)
				idb, _ := json.Marshal(id)
				out.WriteString(`{"jsonrpc":"2.0","id":` + string(idb) + `,"result":{"x":"`)
				chunk := strings.Repeat("a", 1<<16)
				for left := int(n); left > 0; left -= len(chunk) {
					out.WriteString(chunk[:min(left, len(chunk))])
				}
				out.WriteString("\"}}\n")
				out.Flush()
			case hasID && strings.HasPrefix(method, "echo"):
				replies = append(replies, map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"got": m}})
			}
		}
		if len(replies) == 1 && line[0] != '[' {
			write(replies[0])
		} else if len(replies) > 0 {
			write(replies)
		}
	}
}

func init() {
	if os.Getenv("PROXY_TEST_ROLE") == "raw" {
		rawServer()
		os.Exit(0)
	}
}

// startRawProxy starts the proxy (CTXHOOK_HOME a new directory) in front
// of rawServer, which logs what it gets to log.
func startRawProxy(t *testing.T, flags ...string) (cmd *exec.Cmd, stdin io.WriteCloser, stdout io.ReadCloser, stderr *strings.Builder, log string) {
	log = filepath.Join(t.TempDir(), "raw.log")
	cmd, stdin, stdout, stderr = startProxyOf(t, append(flags, "--", "/usr/bin/env", "PROXY_TEST_ROLE=raw", "RAW_LOG="+log, os.Args[0]))
	return cmd, stdin, stdout, stderr, log
}

// startProxyOf starts the proxy with args after --name raw.
func startProxyOf(t *testing.T, args []string) (cmd *exec.Cmd, stdin io.WriteCloser, stdout io.ReadCloser, stderr *strings.Builder) {
	cmd = exec.Command(os.Args[0], append([]string{"proxy", "--name", "raw"}, args...)...)
	cmd.Env = append(os.Environ(), "PROXY_TEST_ROLE=proxy", "CTXHOOK_HOME="+t.TempDir())
	stdin, _ = cmd.StdinPipe()
	stdout, _ = cmd.StdoutPipe()
	stderr = new(strings.Builder)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdin, stdout, stderr
}

// TestWirePassthrough sends raw JSON-RPC through the proxy and checks that
// what is not a tools/call crosses it unchanged, both ways.
func TestWirePassthrough(t *testing.T) {
	cmd, stdin, stdout, stderr, log := startRawProxy(t)
	replies := make(chan map[string]any, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			var v any
			json.Unmarshal(sc.Bytes(), &v)
			switch x := v.(type) {
			case map[string]any:
				replies <- x
			case []any:
				replies <- map[string]any{"batch": x}
			}
		}
		close(replies)
	}()
	sent := []string{
		`{"jsonrpc":"2.0","id":1,"method":"echo/unknown","params":{"a":[1,2,{"b":null}]},"x-vendor":{"k":"v"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`,
		`{"jsonrpc":"2.0","id":"str-id","method":"echo/strid"}`,
		`[{"jsonrpc":"2.0","id":10,"method":"echo/b1"},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},{"jsonrpc":"2.0","id":11,"method":"echo/b2"}]`,
		`{"jsonrpc":"2.0","id":2,"method":"trigger"}`,
	}
	for _, m := range sent {
		io.WriteString(stdin, m+"\n")
	}
	got := map[string]map[string]any{}
	deadline := time.After(15 * time.Second)
	for len(got) < 8 { // 1, "str-id", the batch, 2, s1, s2, s3, list_changed
		select {
		case r, ok := <-replies:
			if !ok {
				t.Fatalf("proxy closed its stdout; got %v\nstderr: %s", got, stderr.String())
			}
			if b, ok := r["batch"]; ok {
				got["batch"] = map[string]any{"batch": b}
				continue
			}
			key, _ := json.Marshal(r["id"])
			if r["id"] == nil {
				key = []byte(r["method"].(string))
			}
			got[string(key)] = r
		case <-deadline:
			t.Fatalf("timed out; got %v\nstderr: %s", got, stderr.String())
		}
	}
	// Requests from the server reach the client as sent; answer them.
	for _, id := range []string{`"s1"`, `"s2"`, `"s3"`} {
		if got[id] == nil {
			t.Fatalf("server request %s not passed to the client: %v", id, got)
		}
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":`+id+`,"result":{"answer":`+id+`}}`+"\n")
	}
	if got["notifications/tools/list_changed"] == nil {
		t.Errorf("list_changed not passed through")
	}
	// The echoed requests arrived at the server unchanged, unknown fields and all.
	var echoed map[string]any
	json.Unmarshal([]byte(sent[0]), &echoed)
	if r := got["1"]; r == nil || !reflect.DeepEqual(r["result"].(map[string]any)["got"], echoed) {
		t.Errorf("echo/unknown arrived changed: %v", got["1"])
	}
	if got[`"str-id"`] == nil {
		t.Errorf("string id lost")
	}
	if b, _ := got["batch"]["batch"].([]any); len(b) != 2 {
		t.Errorf("batch answer: %v", got["batch"])
	}
	time.Sleep(300 * time.Millisecond)
	stdin.Close()
	cmd.Wait()
	raw, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for _, want := range append(sent[:4:4], `{"jsonrpc":"2.0","id":"s1","result":{"answer":"s1"}}`) {
		found := false
		for _, l := range lines {
			if jsonEqual(l, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("the server did not receive, unchanged:\n%s\nit received:\n%s", want, raw)
		}
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// TestWireBrokenAnswer: an answer with a request's id whose JSON is
// broken reaches the client as a JSON-RPC error for that id (a
// tools/call whose result the plugin could not read, and any other
// request alike), never as the broken line, and never as silence.
func TestWireBrokenAnswer(t *testing.T) {
	cmd, stdin, stdout, stderr, log := startRawProxy(t)
	defer func() { stdin.Close(); cmd.Wait() }()
	sent := map[string]string{
		"41": `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"broken","arguments":{}}}`,
		"42": `{"jsonrpc":"2.0","id":42,"method":"broken/echo","params":{"name":"broken"}}`,
		"43": `{"jsonrpc":"2.0","id":43,"method":"tools/call","params":{"name":"broken-cut","arguments":{}}}`,
		"44": `{"jsonrpc":"2.0","id":44,"method":"broken/cut","params":{"name":"broken-cut"}}`,
	}
	for _, m := range sent {
		io.WriteString(stdin, m+"\n")
	}
	sc := bufio.NewScanner(stdout)
	got := map[string]string{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for len(got) < len(sent) && sc.Scan() {
			var m struct {
				ID    json.RawMessage `json:"id"`
				Error *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				got["bad"] = sc.Text()
				return
			}
			if m.Error == nil {
				got[string(m.ID)] = "no error: " + sc.Text()
				continue
			}
			got[string(m.ID)] = m.Error.Message
		}
	}()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		raw, _ := os.ReadFile(log)
		t.Fatalf("no answer to the broken results; got %v\nstderr: %s\nserver got: %s", got, stderr.String(), raw)
	}
	for id := range sent {
		if !strings.Contains(got[id], "not JSON") {
			t.Errorf("id %s: %q, want an error saying the answer was not JSON (all: %v)", id, got[id], got)
		}
	}
}

package cli

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/daemon"
	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/internal/homeprocs"
	"github.com/ctxhook/ctxhook/plugin"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// socketAnswer is what `ctxhook io socket` prints.
type socketAnswer struct {
	Socket     string `json:"socket"`
	Handshake  string `json:"handshake"`
	WasmSHA256 string `json:"wasm_sha256"`
	DaemonBin  string `json:"daemon_bin"`
}

// TestIoSocketNamesThisBuild: io socket names the socket paths.Resolve
// gives, this build's handshake, the sha256 of the plugin this binary
// embeds (what a JS host compares its own plugin.wasm with) and this
// binary.
func TestIoSocketNamesThisBuild(t *testing.T) {
	e := newEnv(t)
	out, errs, code := e.run(t, nil, "io", "socket")
	if code != 0 || errs != "" {
		t.Fatalf("io socket: code %d stderr %q", code, errs)
	}
	var got socketAnswer
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("io socket printed %q: %v", out, err)
	}
	p, _ := paths.Resolve(e.get)
	sum := sha256.Sum256(plugin.Wasm)
	self, _ := os.Executable()
	want := socketAnswer{Socket: p.Socket(), Handshake: daemon.BuildID(), WasmSHA256: hex.EncodeToString(sum[:]), DaemonBin: self}
	if got != want {
		t.Fatalf("io socket = %+v\nwant       %+v", got, want)
	}
}

// TestIoSocketReachesDaemon: what io socket prints is enough to ask the
// daemon daemon_bin starts, as a JS host does: a PostToolUse sent with
// that handshake on that socket is decided and stored; another build's
// handshake is told "mismatch".
func TestIoSocketReachesDaemon(t *testing.T) {
	e := newEnv(t)
	home := e.vars["CTXHOOK_HOME"]
	out, _, _ := e.proc(t, nil, "io", "socket")
	var info socketAnswer
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatalf("io socket printed %q: %v", out, err)
	}
	runDaemonProc(t, e, info)
	t.Cleanup(func() { homeprocs.KillDaemons(home) })

	req := hookproto.Request{Harness: "claude-code", Event: "PostToolUse", ID: "io-socket-test", Payload: read(t, "hook-PostToolUse.json")}
	ans := askDaemon(t, info.Socket, req.Fields(info.Handshake))
	if len(ans) != 5 || string(ans[0]) != "ok" || string(ans[1]) != "0" || len(ans[4]) != 0 {
		t.Fatalf("answer %q", ans)
	}
	// The daemon's writer stores what it spooled just after answering.
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		out, _, _ := e.run(t, nil, "search", "--json", "TCK-42")
		if strings.Contains(out, "mcp__tickets__get_ticket") {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the daemon's event was not found by search: %s", out)
		}
	}
	ans = askDaemon(t, info.Socket, req.Fields("another-build"))
	if len(ans) == 0 || string(ans[0]) != "mismatch" {
		t.Fatalf("another build's request answered %q", ans)
	}
}

// runDaemonProc runs daemon_bin (this test binary as ctxhook) as `ctxhook
// daemon` and waits for its socket.
func runDaemonProc(t *testing.T, e *testEnv, info socketAnswer) {
	t.Helper()
	cmd := exec.Command(info.DaemonBin, "daemon")
	cmd.Env = []string{"CTXHOOK_TEST_MAIN=1", "PATH=" + os.Getenv("PATH")}
	for k, v := range e.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for end := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(info.Socket); err == nil {
			return
		}
		if time.Now().After(end) {
			t.Fatal("no daemon socket a minute after start")
		}
	}
}

// askDaemon sends one request in the daemon's wire format and reads its answer.
func askDaemon(t *testing.T, sock string, fields [][]byte) [][]byte {
	t.Helper()
	conn, err := net.DialTimeout("unix", sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if err := hookproto.Write(conn, fields...); err != nil {
		t.Fatal(err)
	}
	ans, err := hookproto.Read(bufio.NewReader(conn))
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	return ans
}

// TestIoApplyStoresARequestOnce: effects applied twice under one
// CTXHOOK_REQUEST_ID (a JS host deciding in-process a hook its daemon
// may have stored already) are stored once; without it, twice.
func TestIoApplyStoresARequestOnce(t *testing.T) {
	e := newEnv(t)
	ev := &abi.Event{TimeMS: 1, Session: "s1", Harness: "opencode", HookEvent: "tool.execute.after",
		Category: "mcp", Tool: "tickets_get_ticket", Response: "Ticket TCK-77 applied", ResponseBytes: 21}
	effects, _ := json.Marshal([]abi.Effect{{Op: abi.OpStoreEvent, Event: ev}})
	count := func() int {
		out, _, _ := e.run(t, nil, "search", "--json", "TCK-77")
		var res struct{ Results []json.RawMessage }
		json.Unmarshal([]byte(out), &res)
		return len(res.Results)
	}
	e.vars[hookproto.EnvRequestID] = "apply-once"
	for range 2 {
		if out, errs, code := e.run(t, effects, "io", "apply"); code != 0 {
			t.Fatalf("io apply: %d %s %s", code, out, errs)
		}
	}
	if n := count(); n != 1 {
		t.Fatalf("%d events after applying one request twice, want 1", n)
	}
	delete(e.vars, hookproto.EnvRequestID)
	e.run(t, effects, "io", "apply")
	if n := count(); n != 2 {
		t.Fatalf("%d events after applying it once more without a request id, want 2", n)
	}
}

// TestIoApplyIndexesTranscript: an index_transcript effect (a Stop
// decided in-process by the JS host) has the transcript indexed, as the
// hook and the daemon do; it was skipped without a word.
func TestIoApplyIndexesTranscript(t *testing.T) {
	e := newEnv(t)
	tr, _ := filepath.Abs("../../../testdata/transcripts/claude-code-2.1.330.jsonl")
	effects, _ := json.Marshal([]abi.Effect{{Op: abi.OpIndexTranscript, Path: tr, Format: "claude-code",
		Session: "df40db9a-aa1e-4659-910a-3f5b6272f288", Final: true}})
	out, errs, code := e.run(t, effects, "io", "apply")
	if code != 0 || strings.Contains(out, "not indexed") {
		t.Fatalf("io apply: %d %s %s", code, out, errs)
	}
	out, _, _ = e.run(t, nil, "search", "CVX-5909")
	if !strings.Contains(out, "Transcript turns:") {
		t.Fatalf("the transcript was not indexed:\n%s", out)
	}
}

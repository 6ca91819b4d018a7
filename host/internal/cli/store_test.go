package cli

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/shipper"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestSharedStoreUnreachable: with the shared store down, shipping fails
// and says how many events wait (never the URL's password), status and
// doctor report it, and store search falls back to the local copy and
// says so.
func TestSharedStoreUnreachable(t *testing.T) {
	e := newEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing listens there now
	url := "postgres://alice:s3cretPassw0rd@127.0.0.1:" + strconv.Itoa(port) + "/ctxhook?connect_timeout=2"
	cfg := filepath.Join(e.get("CTXHOOK_HOME"), "config", "config.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	os.WriteFile(cfg, []byte("[store]\nurl = \""+url+"\"\n"), 0o600)
	st, err := store.Open(filepath.Join(e.get("CTXHOOK_HOME"), "state", "ctxhook.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Apply([]abi.Event{{TimeMS: 1, Session: "s", Harness: "claude-code", HookEvent: "PostToolUse", Category: "mcp",
		Server: "jira", Tool: "mcp__jira__get", Text: "Ticket CVX-5909 is blocked"}}, nil)
	st.Close()
	out, errs, code := e.run(t, nil, "store", "ship")
	if code != 1 || !strings.Contains(errs, "1 events wait in the local store") {
		t.Errorf("ship: %d %q %q", code, out, errs)
	}
	out, _, _ = e.run(t, nil, "store", "status")
	if !strings.Contains(out, "unreachable") || !strings.Contains(out, "1 events wait") {
		t.Errorf("status: %q", out)
	}
	doc, _, _ := e.run(t, nil, "doctor", "claude-code")
	if !strings.Contains(doc, "FIX   shared store") {
		t.Errorf("doctor does not report the shared store:\n%s", doc)
	}
	out, errs, code = e.run(t, nil, "store", "search", "CVX-5909")
	if code != 0 || !strings.Contains(out, "local copy") || !strings.Contains(out, "CVX-5909") || !strings.Contains(errs, "cannot be reached") {
		t.Errorf("search fallback: %d %q %q", code, out, errs)
	}
	for _, s := range []string{out, errs, doc} {
		if strings.Contains(s, "s3cretPassw0rd") {
			t.Errorf("the URL's password is printed: %q", s)
		}
	}
	report, _ := os.ReadFile(filepath.Join(e.get("CTXHOOK_HOME"), "state", "ship.json"))
	if strings.Contains(string(report), "s3cretPassw0rd") || len(report) == 0 {
		t.Errorf("ship.json: %q", report)
	}
}

// TestShipStatusEscapesServerText: the error a database (or whatever
// answers at its address) sent is shown with its control characters made
// visible, never sent raw to the terminal by store status or doctor.
func TestShipStatusEscapesServerText(t *testing.T) {
	dir := t.TempDir()
	p := paths.Paths{Data: dir}
	r := shipper.Report{Error: "FATAL \x1b]0;owned\x07\x1b[2J", SinceMS: 1, Database: "db\x1b[31m"}
	b, _ := json.Marshal(r)
	if err := os.WriteFile(shipper.ReportPath(p), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := shipStatus(p, "postgres://x/y"); strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("raw control characters: %q", got)
	}
}

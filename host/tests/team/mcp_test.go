package team

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The events these tests write say "ledger", never "payroll": TestTeam
// counts the pieces holding that word.

// TestTeamMCP: what each of the six homes' agents reads through a real
// `ctxhook mcp` once the shippers have sent every home's events. search
// finds the user's own private events from both machines (this machine's
// as local events, the other's as shared ones, never twice) and every
// team event, never another user's private one; get_event and
// get_context refuse another user's private event even by its forged
// shared id, and read a teammate's team event and its session, without
// that session's private events. With the database out of reach the
// tools answer from the local store and say so.
func TestTeamMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("four homes against a real PostgreSQL, about 50 s (-short)")
	}
	needPG(t)
	hs := homes(t)
	hookAll(t, hs, func(h *home) [][]byte {
		return [][]byte{
			h.payload(t, "vault", "vault entry mcppriv"+h.user+h.machine+" for the ledger run"),
			h.payload(t, "tickets", "Ticket mcpteam"+h.user+h.machine+" moved to review"),
		}
	})
	const sent = `SELECT count(*) FROM ctxhook_events WHERE body_text LIKE 'vault entry mcppriv%' OR body_text LIKE 'Ticket mcpteam%'`
	if n := waitFor(t, 90*time.Second, 12, sent); n != 12 {
		t.Fatalf("%d events in the database after 90 s, want 12", n)
	}
	for _, h := range hs {
		s := h.mcp(t, nil)
		for _, o := range hs {
			mcpSearch(t, h, o, s)
			mcpRead(t, h, o, s)
		}
	}
	// The database out of reach (a closed port): local answers, a warning.
	h := hs[0]
	s := h.mcp(t, []string{fmt.Sprintf("CTXHOOK_STORE_URL=postgres://%s@127.0.0.1:1/ctxhook?sslmode=disable", h.user)})
	text, res := s.call(t, "search", map[string]any{"query": "mcpteam" + h.user + h.machine})
	if !strings.Contains(text, "SHARED_UNREACHABLE") || count(res, "mcpteam"+h.user+h.machine) != 1 {
		t.Errorf("search with the shared store out of reach: want the local event and SHARED_UNREACHABLE\n%s", text)
	}
}

// mcpSearch: what h's search finds of o's two events.
func mcpSearch(t *testing.T, h, o *home, s *session) {
	priv, team := "mcppriv"+o.user+o.machine, "mcpteam"+o.user+o.machine
	text, res := s.call(t, "search", map[string]any{"query": priv, "limit": 50})
	if n, want := count(res, priv), map[bool]int{true: 1}[o.user == h.user]; n != want {
		t.Errorf("%s/%s search for %s/%s's private event: %d results, want %d\n%s", h.user, h.machine, o.user, o.machine, n, want, text)
	}
	text, res = s.call(t, "search", map[string]any{"query": team, "limit": 50})
	if n := count(res, team); n != 1 {
		t.Errorf("%s/%s search for %s/%s's team event: %d results, want 1\n%s", h.user, h.machine, o.user, o.machine, n, text)
	}
	if kind := kindOf(res, team); kind != map[bool]string{true: "event", false: "shared"}[o == h] {
		t.Errorf("%s/%s finds %s/%s's team event as %q", h.user, h.machine, o.user, o.machine, kind)
	}
	// A forged session filter does not widen what is seen.
	text, res = s.call(t, "search", map[string]any{"query": "ledger", "session": o.session(), "server": "vault", "limit": 50})
	if o.user != h.user && count(res, "mcppriv"+o.user) > 0 {
		t.Errorf("%s/%s with forged filters finds %s's private event\n%s", h.user, h.machine, o.user, text)
	}
}

// mcpRead: get_event and get_context on o's events by their ids in the
// shared store, as h (forged where o is another user's private event).
func mcpRead(t *testing.T, h, o *home, s *session) {
	if o.user == h.user {
		return
	}
	privID := adminCount(t, `SELECT id FROM ctxhook_events WHERE body_text = $1`, "vault entry mcppriv"+o.user+o.machine+" for the ledger run")
	teamID := adminCount(t, `SELECT id FROM ctxhook_events WHERE body_text = $1`, "Ticket mcpteam"+o.user+o.machine+" moved to review")
	for _, tool := range []string{"get_event", "get_context"} {
		arg := map[string]any{"id": fmt.Sprintf("s%d", privID)}
		if tool == "get_context" {
			arg = map[string]any{"chunk_id": fmt.Sprintf("s%d", privID)}
		}
		if text, res := s.call(t, tool, arg); !res.IsError || strings.Contains(text, "mcppriv") {
			t.Errorf("%s/%s %s of %s's private event s%d: %s", h.user, h.machine, tool, o.user, privID, text)
		}
	}
	text, res := s.call(t, "get_event", map[string]any{"id": fmt.Sprintf("s%d", teamID)})
	if res.IsError || !strings.Contains(text, "mcpteam"+o.user+o.machine) {
		t.Errorf("%s/%s get_event of %s's team event s%d: %s", h.user, h.machine, o.user, teamID, text)
	}
	text, res = s.call(t, "get_context", map[string]any{"chunk_id": fmt.Sprintf("s%d", teamID), "count": 10})
	if res.IsError || !strings.Contains(text, "mcpteam"+o.user+o.machine) || strings.Contains(text, "mcppriv") || strings.Contains(text, "priv"+o.user) {
		t.Errorf("%s/%s get_context of %s's team event s%d: %s", h.user, h.machine, o.user, teamID, text)
	}
}

// session is one running `ctxhook mcp` of a home.
type session struct{ cs *mcp.ClientSession }

// mcp starts the home's `ctxhook mcp` (with extra environment).
func (h *home) mcp(t *testing.T, extra []string) *session {
	cmd := exec.Command(filepath.Join(bin, "ctxhook"), "mcp")
	cmd.Env = append(append([]string{}, h.env...), extra...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "team-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &session{cs}
}

// call calls a tool and returns its text and result.
func (s *session) call(t *testing.T, tool string, args map[string]any) (string, *mcp.CallToolResult) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res
}

// hits are a search answer's results.
func hits(res *mcp.CallToolResult) []struct{ Kind, Snippet string } {
	var out struct {
		Results []struct{ Kind, Snippet string } `json:"results"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(raw, &out)
	return out.Results
}

// count is how many results' snippets hold marker.
func count(res *mcp.CallToolResult, marker string) int {
	n := 0
	for _, h := range hits(res) {
		if strings.Contains(h.Snippet, marker) {
			n++
		}
	}
	return n
}

// kindOf is the kind of the first result holding marker.
func kindOf(res *mcp.CallToolResult, marker string) string {
	for _, h := range hits(res) {
		if strings.Contains(h.Snippet, marker) {
			return h.Kind
		}
	}
	return ""
}

// TestTeamProxy: each home's agent calls its tickets and vault servers
// through the real `ctxhook proxy` (decisions in the home's daemon, which
// ships the events). Every user then finds every proxied tickets result
// through `ctxhook mcp`, and only their own proxied vault results.
func TestTeamProxy(t *testing.T) {
	needPG(t)
	hs := homes(t)
	for _, h := range hs {
		for _, server := range []string{"tickets", "vault"} {
			h.proxyCall(t, server, "proxied"+server+h.user+h.machine+" from the "+server+" server")
		}
	}
	const sent = `SELECT count(*) FROM ctxhook_events WHERE body_text LIKE 'proxied%'`
	if n := waitFor(t, 90*time.Second, 12, sent); n != 12 {
		t.Fatalf("%d proxied events in the database after 90 s, want 12", n)
	}
	for _, h := range hs {
		s := h.mcp(t, nil)
		for _, o := range hs {
			for server, want := range map[string]bool{"tickets": true, "vault": o.user == h.user} {
				marker := "proxied" + server + o.user + o.machine
				text, res := s.call(t, "search", map[string]any{"query": marker, "limit": 50})
				if got := count(res, marker); got != map[bool]int{true: 1}[want] {
					t.Errorf("%s/%s finds %s/%s's proxied %s result %d times, want %v\n%s", h.user, h.machine, o.user, o.machine, server, got, want, text)
				}
			}
		}
	}
}

// proxyCall calls server's tool "echo" through the home's `ctxhook proxy`,
// whose MCP server is this test binary, and checks the answer.
func (h *home) proxyCall(t *testing.T, server, text string) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "ctxhook"), "proxy", "--name", server, "--", self)
	cmd.Env = append(append([]string{}, h.env...), "TEAM_TEST_ROLE=server")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "team-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
	if err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("%s/%s proxied call to %s: %v %+v", h.user, h.machine, server, err, res)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, text) {
		t.Fatalf("%s/%s proxied call to %s answered %q", h.user, h.machine, server, got)
	}
}

// serveEcho is a one-tool MCP server on stdio: echo returns its text.
func serveEcho() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "returns its text"},
		func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
	srv.Run(context.Background(), &mcp.StdioTransport{})
}

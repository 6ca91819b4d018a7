package demo

import (
	"context"
	"encoding/json"
	"github.com/ctxhook/ctxhook/host/internal/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/google/go-cmp/cmp"
)

// TestBundledSession replays the recorded session and checks the figures
// `make demo` reports, so the demo cannot silently stop proving them.
// replayBundled replays the bundled session into a fresh CTXHOOK_HOME.
func replayBundled(t *testing.T) (*Report, paths.Paths, []Record) {
	t.Helper()
	records, err := Session()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "CTXHOOK_HOME" {
			return home
		}
		return ""
	}
	p, err := paths.Resolve(getenv)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Replay(context.Background(), p, records, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return rep, p, records
}

func TestBundledSession(t *testing.T) {
	rep, p, _ := replayBundled(t)
	if rep.ToolCalls < 30 || len(rep.MCPCalls) < 2 {
		t.Errorf("recording too small: %d tool calls over %v", rep.ToolCalls, rep.MCPCalls)
	}
	if rep.RelayNeeded != 20 || rep.Relayed != 20 || rep.RelayMatched != 20 {
		t.Errorf("relay: needed %d, relayed %d, matched %d; want 20 each", rep.RelayNeeded, rep.Relayed, rep.RelayMatched)
	}
	if diff := cmp.Diff([]int{1, 11, 21, 31}, rep.NudgeCalls); diff != "" {
		t.Errorf("nudged calls (-want +got):\n%s", diff)
	}
	if len(rep.SampleHits) == 0 || !strings.Contains(rep.SampleHits[0].Snippet, "CVX-5909") {
		t.Errorf("sample search: %+v", rep.SampleHits)
	}
	if len(rep.Warnings) > 0 {
		t.Errorf("warnings: %v", rep.Warnings)
	}
	// The recording carries the planted secrets of the test MCP server;
	// none reaches the store.
	raw := string(session)
	planted := []string{"AKIAPLANTEDSECRET123", "planted-db-password-7f3k"}
	for _, s := range planted {
		if !strings.Contains(raw, s) {
			t.Fatalf("recording lacks planted secret %q: the check below proves nothing", s)
		}
	}
	filepath.WalkDir(p.Data, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		b, _ := os.ReadFile(path)
		for _, s := range planted {
			if strings.Contains(string(b), s) {
				t.Errorf("%s holds planted secret %q", path, s)
			}
		}
		return nil
	})
}

// TestShapingKeepsFactsRetrievable: on the bundled session, shaping keeps
// at least 80% of the MCP response bytes out of the model's context, and
// every fact planted in the original responses (past the part the model
// still sees) is found by ctxhook's MCP server: search returns an event
// holding it in its top 3, and get_event returns the fact.
func TestShapingKeepsFactsRetrievable(t *testing.T) {
	rep, p, records := replayBundled(t)
	cut := 1 - float64(rep.ContextBytes)/float64(rep.MCPBytes)
	t.Logf("MCP response bytes %d, in context %d: %.1f%% kept out, %d shaped", rep.MCPBytes, rep.ContextBytes, 100*cut, rep.Shaped)
	if cut < 0.80 {
		t.Errorf("shaping kept %.1f%% of MCP bytes out of context, want at least 80%%", 100*cut)
	}

	// The facts, from the recorded responses themselves.
	facts := map[string]bool{}
	for _, r := range records {
		if r.Event != "PostToolUse" {
			continue
		}
		for _, line := range strings.Split(string(r.Payload), `\n`) {
			if i := strings.Index(line, "FACT "); i >= 0 {
				facts[strings.TrimSpace(strings.ReplaceAll(line[i:], `\"`, `"`))] = true
			}
		}
	}
	if len(facts) < 15 {
		t.Fatalf("only %d facts in the recording: the check would prove little", len(facts))
	}

	srv := mcpserver.New(mcpserver.Options{DB: p.DB(), Version: "test"})
	ct, stt := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.MCP().Connect(ctx, stt, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for fact := range facts {
		// What a model would search for: the fact's subject and first words.
		words := strings.Fields(strings.TrimSuffix(fact, "%"))
		query := strings.Join(words[1:min(len(words), 6)], " ")
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": query, "limit": 3}})
		if err != nil || res.IsError {
			t.Fatalf("search %q: %v %v", query, err, res)
		}
		var out struct {
			Results []struct{ ID int64 } `json:"results"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		found := false
		for _, hit := range out.Results {
			ev, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_event", Arguments: map[string]any{"id": hit.ID, "length": 262144}})
			if err != nil || ev.IsError {
				t.Fatalf("get_event %d: %v", hit.ID, err)
			}
			var body struct{ Body string }
			b, _ := json.Marshal(ev.StructuredContent)
			json.Unmarshal(b, &body)
			if strings.Contains(body.Body, fact) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("fact %q: no event in search %q's top 3 returns it", fact, query)
		}
	}
}

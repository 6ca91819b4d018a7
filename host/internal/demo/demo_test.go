package demo

import (
	"context"
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
func TestBundledSession(t *testing.T) {
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

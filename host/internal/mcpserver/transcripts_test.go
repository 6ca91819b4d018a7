package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/transcripts"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/testcache"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// recorded are the session histories real clients wrote
// (testdata/transcripts), each with the fact the test MCP server planted
// in it: the ticket's suspected root cause.
var recorded = []struct{ file, format string }{
	{"claude-code-2.1.330.jsonl", "claude-code"},
	{"codex-0.169.0.jsonl", "codex"},
	{"copilot-1.0.102.jsonl", "copilot"},
	{"droid-0.225.2.jsonl", "droid"},
	{"gemini-0.61.0.jsonl", "gemini"},
	{"opencode-1.18.33.db", "opencode"},
	{"kilo-7.7.7.db", "kilo"},
	{"qwen-0.24.4.jsonl", "qwen"},
	{"pi-1.6.0.jsonl", "pi"},
}

// plantedSecrets are in every recorded ticket; no chunk may hold them.
var plantedSecrets = []string{"AKIAPLANTEDSECRET123", "planted-db-password-7f3k"}

// TestRecordedTranscripts: each harness's recorded history, indexed by the
// real plugin into a real store, is found by search on its planted fact,
// redacted, with its session, project and time, and get_context walks the
// session's turns around it.
func TestRecordedTranscripts(t *testing.T) {
	ctx := context.Background()
	r, err := runner.New(ctx, runner.Options{CacheDir: testcache.Dir("ctxhook-test-wasm")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(ctx) })
	for _, tt := range recorded {
		t.Run(tt.format, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "ctxhook.db")
			indexRecorded(t, r, db, tt.file, tt.format)
			cs := connectTo(t, New(Options{DB: db, Version: "test", Now: time.Now}), "")
			_, out := callTool(t, cs, "search", map[string]any{"query": "retryPolicyForGateway", "category": "transcript"})
			results, _ := out["results"].([]any)
			if len(results) == 0 {
				t.Fatalf("search found no turn: %v", out)
			}
			hit := results[0].(map[string]any)
			if hit["harness"] != tt.format || hit["session"] == "" || hit["session"] == "unknown" || strings.HasPrefix(hit["time"].(string), "1970") {
				t.Errorf("hit %v", hit)
			}
			_, ev := callTool(t, cs, "get_event", map[string]any{"id": hit["ref"]})
			body, _ := ev["body"].(string)
			if !strings.Contains(body, "retryPolicyForGateway") || !strings.Contains(body, "CVX-5909") {
				t.Errorf("turn body lacks the ticket: %.300s", body)
			}
			for _, s := range plantedSecrets {
				if strings.Contains(body, s) {
					t.Errorf("turn holds the planted secret %s", s)
				}
			}
			_, ctxOut := callTool(t, cs, "get_context", map[string]any{"chunk_id": hit["ref"]})
			evs, _ := ctxOut["events"].([]any)
			if len(evs) == 0 || ctxOut["session"] != hit["session"] || (ctxOut["project"] == "" && tt.format != "gemini") {
				t.Errorf("get_context %v", ctxOut)
			}
		})
	}
}

// indexRecorded copies a recorded history into a temp dir and indexes it
// whole, as `ctxhook index` does a quiet session.
func indexRecorded(t *testing.T, r *runner.Runner, db, file, format string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "transcripts", file))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), file)
	os.WriteFile(path, b, 0o600)
	jobs := []transcripts.Job{{Path: path, Format: format, Final: true}}
	if strings.HasSuffix(file, ".db") {
		if jobs, err = transcripts.DBJobs(path, format, 0); err != nil || len(jobs) == 0 {
			t.Fatalf("DBJobs: %v %v", jobs, err)
		}
	}
	st, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	noState := func([]string) (map[string]string, error) { return nil, nil }
	for _, j := range jobs {
		if res, err := transcripts.Index(context.Background(), r, st, abi.Config{}, noState, j, 0); err != nil || res.Chunks == 0 {
			t.Fatalf("index %s: %+v %v", j.Path, res, err)
		}
	}
}

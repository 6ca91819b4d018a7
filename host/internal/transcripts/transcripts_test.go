package transcripts

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/testcache"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

func noState([]string) (map[string]string, error) { return nil, nil }

// fixture is the real plugin, a real store, and a copy of a recorded
// transcript to grow.
func fixture(t *testing.T, name string) (*runner.Runner, *store.Store, string, []byte) {
	t.Helper()
	ctx := context.Background()
	r, err := runner.New(ctx, runner.Options{CacheDir: testcache.Dir("ctxhook-test-wasm")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(ctx) })
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "ctxhook.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b, err := os.ReadFile("../../../testdata/transcripts/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return r, st, filepath.Join(dir, "session.jsonl"), b
}

func chunks(t *testing.T, st *store.Store) int64 {
	n, err := st.ChunkCount()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestIncremental: a transcript written in two halves is indexed as it
// grows: the half-written turn waits until the session is over, nothing
// is indexed twice, the stored offset is the file's end at the last pass,
// and a file rewritten shorter starts over.
func TestIncremental(t *testing.T) {
	for _, tt := range []struct{ file, format string }{{"claude-code-2.1.330.jsonl", "claude-code"}, {"codex-0.169.0.jsonl", "codex"}} {
		t.Run(tt.format, func(t *testing.T) {
			r, st, path, b := fixture(t, tt.file)
			ctx := context.Background()
			lines := bytes.SplitAfter(b, []byte("\n"))
			half := bytes.Join(lines[:len(lines)/2], nil)
			os.WriteFile(path, half, 0o600)
			job := Job{Path: path, Format: tt.format}
			if _, err := Index(ctx, r, st, abi.Config{}, noState, job, 0); err != nil {
				t.Fatal(err)
			}
			first := chunks(t, st)
			os.WriteFile(path, b, 0o600)
			job.Final = true
			res, err := Index(ctx, r, st, abi.Config{}, noState, job, 0)
			if err != nil || !res.Done {
				t.Fatalf("second pass: %+v %v", res, err)
			}
			all := chunks(t, st)
			if all == 0 || all < first {
				t.Fatalf("chunks: %d after the first half, %d after all", first, all)
			}
			if off, _ := st.TranscriptOffset(path); off != int64(len(b)) {
				t.Errorf("offset %d, file %d bytes", off, len(b))
			}
			// Nothing new: nothing indexed again.
			res, err = Index(ctx, r, st, abi.Config{}, noState, job, 0)
			if err != nil || res.Chunks != 0 || chunks(t, st) != all {
				t.Errorf("a pass over an indexed file: %+v %v, %d chunks (was %d)", res, err, chunks(t, st), all)
			}
			// The whole file at once in another store gives the same count.
			r2, st2, path2, _ := fixture(t, tt.file)
			os.WriteFile(path2, b, 0o600)
			if _, err := Index(ctx, r2, st2, abi.Config{}, noState, Job{Path: path2, Format: tt.format, Final: true}, 0); err != nil {
				t.Fatal(err)
			}
			if whole := chunks(t, st2); whole != all {
				t.Errorf("indexed in two passes: %d chunks; at once: %d", all, whole)
			}
			// Rewritten shorter (rotated): indexed again from the start.
			os.WriteFile(path, half, 0o600)
			if _, err := Index(ctx, r, st, abi.Config{}, noState, job, 0); err != nil {
				t.Fatal(err)
			}
			if off, _ := st.TranscriptOffset(path); off != int64(len(half)) {
				t.Errorf("after a rewrite: offset %d, file %d bytes", off, len(half))
			}
		})
	}
}

// TestOddFiles: a transcript that does not exist yet is done with nothing
// to do; a directory is an error, not a stall.
func TestOddFiles(t *testing.T) {
	r, st, path, _ := fixture(t, "claude-code-2.1.330.jsonl")
	ctx := context.Background()
	res, err := Index(ctx, r, st, abi.Config{}, noState, Job{Path: path, Format: "claude-code"}, 0)
	if err != nil || !res.Done || res.Chunks != 0 {
		t.Errorf("a missing file: %+v %v", res, err)
	}
	dir := filepath.Dir(path)
	if _, err := Index(ctx, r, st, abi.Config{}, noState, Job{Path: dir, Format: "claude-code"}, 0); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
}

// TestFind: every harness's history where it keeps it, nothing else; a
// symbolic link in a history directory (to a file or a directory
// elsewhere) is never followed, and a file others may write is skipped.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.jsonl")
	os.WriteFile(outside, []byte("{}\n"), 0o600)
	for _, p := range []string{".claude/projects/p1/a.jsonl", ".claude/projects/p2/b.jsonl", ".claude/projects/p2/notes.txt",
		".codex/sessions/2026/11/rollout-1.jsonl", ".codex/other/x.jsonl", ".copilot/session-state/s1/events.jsonl",
		".copilot/session-state/s1/workspace.yaml", ".factory/sessions/-p/s2.jsonl", ".gemini/tmp/p/chats/session-1.jsonl",
		".gemini/tmp/p/logs.json", ".qwen/projects/-p/chats/s3.jsonl", ".pi/agent/sessions/--p--/t_s4.jsonl"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o700)
		os.WriteFile(filepath.Join(dir, p), []byte("{}\n"), 0o600)
	}
	os.Symlink(outside, filepath.Join(dir, ".claude/projects/p1/link.jsonl"))
	os.Symlink(filepath.Dir(outside), filepath.Join(dir, ".claude/projects/linkdir"))
	shared := filepath.Join(dir, ".factory/sessions/-p/shared.jsonl")
	os.WriteFile(shared, []byte("{}\n"), 0o600)
	os.Chmod(shared, 0o666)
	var skipped []string
	jobs := Find(Sources(dir, func(string) string { return "" }), func(p, why string) { skipped = append(skipped, filepath.Base(p)) })
	got := map[string]string{}
	for _, j := range jobs {
		rel, _ := filepath.Rel(dir, j.Path)
		got[filepath.ToSlash(rel)] = j.Format
	}
	want := map[string]string{".claude/projects/p1/a.jsonl": "claude-code", ".claude/projects/p2/b.jsonl": "claude-code",
		".codex/sessions/2026/11/rollout-1.jsonl": "codex", ".copilot/session-state/s1/events.jsonl": "copilot",
		".factory/sessions/-p/s2.jsonl": "droid", ".gemini/tmp/p/chats/session-1.jsonl": "gemini",
		".qwen/projects/-p/chats/s3.jsonl": "qwen", ".pi/agent/sessions/--p--/t_s4.jsonl": "pi"}
	if len(got) != len(want) {
		t.Fatalf("Find = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("Find[%s] = %q, want %q", k, got[k], v)
		}
	}
	if !slices.Contains(skipped, "link.jsonl") || (runtime.GOOS != "windows" && !slices.Contains(skipped, "shared.jsonl")) {
		t.Errorf("skipped %v, want the link and the file others may write", skipped)
	}
}

// TestHostileDatabases: an OpenCode database that is a link to another
// file, or not a database at all, is named and skipped; the rest of the
// history is still found.
func TestHostileDatabases(t *testing.T) {
	for _, tt := range []struct {
		name  string
		plant func(db string)
	}{
		{"link", func(db string) {
			real := filepath.Join(filepath.Dir(db), "elsewhere.db")
			b, _ := os.ReadFile("../../../testdata/transcripts/opencode-1.18.33.db")
			os.WriteFile(real, b, 0o600)
			os.Symlink(real, db)
		}},
		{"garbage", func(db string) { os.WriteFile(db, bytes.Repeat([]byte("not a database\x00"), 1000), 0o600) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			db := filepath.Join(home, ".local/share/opencode/opencode.db")
			os.MkdirAll(filepath.Dir(db), 0o700)
			tt.plant(db)
			os.MkdirAll(filepath.Join(home, ".pi/agent/sessions/p"), 0o700)
			os.WriteFile(filepath.Join(home, ".pi/agent/sessions/p/s.jsonl"), []byte("{}\n"), 0o600)
			var skipped []string
			jobs := Find(Sources(home, func(string) string { return "" }), func(p, why string) { skipped = append(skipped, p+": "+why) })
			if len(jobs) != 1 || jobs[0].Format != "pi" || len(skipped) != 1 || !strings.Contains(skipped[0], "opencode.db") {
				t.Errorf("jobs %v, skipped %q", jobs, skipped)
			}
		})
	}
}

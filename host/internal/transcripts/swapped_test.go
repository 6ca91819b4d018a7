package transcripts

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestSwappedFileRefused: Find checks a path, Index opens it later; a
// symbolic link or a file others may write put there in between is not
// read (the open file itself is checked), and nothing is stored.
func TestSwappedFileRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links and modes differ on Windows")
	}
	r, st, path, b := fixture(t, "claude-code-2.1.330.jsonl")
	ctx := context.Background()
	elsewhere := filepath.Join(t.TempDir(), "elsewhere.jsonl")
	os.WriteFile(elsewhere, b, 0o600)
	if err := os.Symlink(elsewhere, path); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(filepath.Dir(path), "open.jsonl")
	os.WriteFile(open, b, 0o600)
	os.Chmod(open, 0o666)
	for _, p := range []string{path, open} {
		if _, err := Index(ctx, r, st, abi.Config{}, noState, Job{Path: p, Format: "claude-code", Final: true}, 0); err == nil {
			t.Errorf("%s was read", p)
		}
	}
	if n := chunks(t, st); n != 0 {
		t.Errorf("%d chunks stored from files that were refused", n)
	}
}

package transcripts

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/testcache"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestLongTurn: a turn longer than a pass (a tool result of a few MB)
// no longer stops its transcript there: the pass grows until the turn
// fits, or, past MaxTurn, the turn is cut and read past; either way every
// later turn is indexed, once, and the offset reaches the file's end.
func TestLongTurn(t *testing.T) {
	for _, tt := range []struct {
		file, format string
		maxTurn      int64
	}{
		{"claude-code-2.1.330.jsonl", "claude-code", MaxTurn},
		{"codex-0.169.0.jsonl", "codex", MaxTurn},
		{"droid-0.225.2.jsonl", "droid", MaxTurn},
		{"claude-code-2.1.330.jsonl", "claude-code", 512 << 10}, // cut
	} {
		t.Run(tt.format, func(t *testing.T) {
			defer func(m int64) { MaxTurn = m }(MaxTurn)
			MaxTurn = tt.maxTurn
			_, st, path, b := fixture(t, tt.file)
			ctx := context.Background()
			// As ctxhook index runs it: a call of a 4 MiB pass under load
			// outlasts an interruptible call's bound.
			r, err := runner.New(ctx, runner.Options{CacheDir: testcache.Dir("ctxhook-test-wasm"), NoInterrupt: true})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close(ctx)
			anchor := []byte("checkout fails with HTTP 502 after the payments deploy")
			big := bytes.Replace(b, anchor, append(append(anchor, ' '), bytes.Repeat([]byte("build log line ok "), 1<<20/18)...), 1)
			later := bytes.ReplaceAll(b, []byte("CVX-5909"), []byte("CVX-7777"))
			file := append(append(big, later...), later...)
			os.WriteFile(path, file, 0o600)
			res, err := Index(ctx, r, st, abi.Config{}, noState, Job{Path: path, Format: tt.format, Final: true, Pass: 256 << 10}, 0)
			if err != nil || !res.Done {
				t.Fatalf("%+v %v", res, err)
			}
			if off, _ := st.TranscriptOffset(path); off != int64(len(file)) {
				t.Errorf("offset %d of %d: the transcript stopped at its long turn", off, len(file))
			}
			// The same turns unpadded, in a store of their own.
			_, st2, path2, _ := fixture(t, tt.file)
			os.WriteFile(path2, append(append(b, later...), later...), 0o600)
			Index(ctx, r, st2, abi.Config{}, noState, Job{Path: path2, Format: tt.format, Final: true}, 0)
			if got, want := chunks(t, st), chunks(t, st2); got != want {
				t.Errorf("%d turns, want %d", got, want)
			}
			hits, _, err := st.SearchChunks(store.ParseQuery("CVX-7777"), store.SearchOptions{Limit: 10})
			if err != nil || len(hits) < 2 {
				t.Errorf("the turns after the long one are not found: %d hits, %v", len(hits), err)
			}
		})
	}
}

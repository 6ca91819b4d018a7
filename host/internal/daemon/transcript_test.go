//go:build unix

package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/store"
)

// TestTranscriptAfterAnswer: Claude Code's Stop hook names its
// session's transcript, and the daemon indexes what is new in it after
// it has answered, not before: a turn's transcript holds its tool
// results, and storing them is work the user would wait for at the end
// of every turn. With the store's write lock held by another process's
// writer, a pass waits for the lock (up to the store's busy timeout,
// 2 s) while the answer does not; a later pass stores the transcript.
func TestTranscriptAfterAnswer(t *testing.T) {
	home := shortHome(t)
	p, cancel, done := runDaemon(t, home, time.Minute)
	defer func() { cancel(); <-done }()

	transcript := filepath.Join(home, "session.jsonl")
	raw, err := os.ReadFile("../../../testdata/transcripts/claude-code-2.1.330.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(transcript, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	payload := stopWith(t, transcript)

	st, err := store.Open(p.DB(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	release, err := st.HoldWriteLock()
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{Paths: p}
	defer c.Close()
	t0 := time.Now()
	a, err := c.Ask(hookproto.Request{Harness: "claude-code", Event: "Stop", ID: "transcript-1", Payload: payload}, 20*time.Second)
	took := time.Since(t0)
	release()
	if err != nil || a.Failed != "" {
		t.Fatalf("hook: %v (%s)", err, a.Failed)
	}
	if took > time.Second {
		t.Errorf("the answer took %v behind a held store: it waited for the transcript pass", took)
	}

	// The pass behind the lock gave up at the busy timeout; the next
	// Stop's pass (after its answer, too) stores what is new.
	if _, err := c.Ask(hookproto.Request{Harness: "claude-code", Event: "Stop", ID: "transcript-2", Payload: payload}, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		hits, _, err := st.SearchChunks(store.ParseQuery("CVX-5909"), store.SearchOptions{})
		if err == nil && len(hits) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the transcript was not indexed after the answers (%v)", err)
		}
	}

	// The daemon stopped right after an answer whose pass still runs
	// waits for it: the pass returns its instance to the pool, which
	// Run must not have closed (a send on a closed channel ends the
	// process).
	f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(raw)
	f.Close()
	if _, err := c.Ask(hookproto.Request{Harness: "claude-code", Event: "Stop", ID: "transcript-3", Payload: payload}, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("daemon: %v", err)
	}
	done <- nil // for the deferred stop
}

// stopWith is the recorded Claude Code Stop payload with its
// transcript_path set to path.
func stopWith(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../../testdata/payloads/claude-code/2.1.330/hook-Stop.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["transcript_path"] = path
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

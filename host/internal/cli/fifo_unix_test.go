//go:build unix

package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStopWithFIFOTranscript: a FIFO named as the transcript is not
// opened for reading until a writer comes (which stalled every Stop hook
// to its deadline): the hook answers at once and says why nothing was
// indexed.
func TestStopWithFIFOTranscript(t *testing.T) {
	e := newEnv(t)
	fifo := filepath.Join(t.TempDir(), "transcript.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	json.Unmarshal(read(t, "hook-Stop.json"), &p)
	p["transcript_path"] = fifo
	payload, _ := json.Marshal(p)
	e.vars["CTXHOOK_HOOK_DEADLINE_MS"] = "8000"
	start := time.Now()
	_, errs, code := e.proc(t, payload, "hook", "claude-code", "Stop")
	if took := time.Since(start); code != 0 || took > 5*time.Second {
		t.Fatalf("Stop with a FIFO transcript: exit %d after %v (deadline 8 s): %s", code, took.Round(time.Millisecond), errs)
	}
	if !strings.Contains(errs, "not a regular file") {
		t.Errorf("stderr does not say why: %q", errs)
	}
}

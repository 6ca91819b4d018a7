//go:build unix

package cli

import (
	"encoding/json"
	"fmt"
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
	// A deadline far beyond what a loaded machine needs for the hook: a
	// hook stalled on the FIFO would answer at it, one that is not answers
	// long before (and says why nothing was indexed, below).
	const deadline = 60 * time.Second
	e.vars["CTXHOOK_HOOK_DEADLINE_MS"] = fmt.Sprint(deadline.Milliseconds())
	start := time.Now()
	_, errs, code := e.proc(t, payload, "hook", "claude-code", "Stop")
	if took := time.Since(start); code != 0 || took > deadline/2 {
		t.Fatalf("Stop with a FIFO transcript: exit %d after %v (deadline %v): %s", code, took.Round(time.Millisecond), deadline, errs)
	}
	if !strings.Contains(errs, "not a regular file") {
		t.Errorf("stderr does not say why: %q", errs)
	}
}

//go:build linux

package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/paths"
)

// TestNoPointerToALostEvent: on a full disk the response cannot be stored
// or spooled, so the model must not be told it is "stored as event ...":
// the shaped answer falls back to the plugin's unstored one (the nudge
// only, here), and the hook says the events were lost.
func TestNoPointerToALostEvent(t *testing.T) {
	e := home(t)
	p, _ := paths.Resolve(e.get)
	mountTmpfs(t, p.Data, "2m")
	var base map[string]any
	json.Unmarshal(payload(t, "PostToolUse"), &base)
	base["tool_response"] = []map[string]string{{"type": "text", "text": "Ticket FULL-1: " + strings.Repeat("the printer is on fire again. ", 1000)}}
	big, _ := json.Marshal(base)

	run := func() (string, string) {
		var out, errb bytes.Buffer
		if code := Run(context.Background(), "claude-code", "PostToolUse", IO{Stdin: bytes.NewReader(big), Stdout: &out, Stderr: &errb}, e.get); code != 0 {
			t.Fatalf("exit %d", code)
		}
		return out.String(), errb.String()
	}
	// With room: shaped, pointing at the stored event.
	if out, _ := run(); !strings.Contains(out, "stored as event") {
		t.Fatalf("a large response with room on the disk is not shaped: %q", out)
	}
	f, _ := os.Create(filepath.Join(p.Data, "filler"))
	f.Write(make([]byte, 4<<20)) // ENOSPC part way
	f.Close()
	out, errOut := run()
	if strings.Contains(out, "stored as event") {
		t.Fatalf("the model is pointed at an event nobody kept: %q", out)
	}
	if !strings.Contains(errOut, "lost") {
		t.Errorf("stderr does not say the events were lost: %q", errOut)
	}
	if out != "" && !json.Valid([]byte(out)) {
		t.Errorf("invalid answer %q", out)
	}
}

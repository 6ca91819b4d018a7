package engine

import (
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestWarmSamples: every warm-up sample is a real decision that does the
// work it stands for. Should a change of the engine make one fail or
// do nothing (a dialect renamed, a relay no longer taken), the warm-up
// would silently stop warming.
func TestWarmSamples(t *testing.T) {
	samples := WarmSamples()
	var injected, captured, redacted, stored int
	for _, req := range samples {
		p := ParsePayload(req.Harness, req.Payload)
		if _, err := p.Prepare(); err != nil {
			t.Fatalf("%s %s: prepare: %v", req.Harness, req.Event, err)
		}
		resp, err := HandleParsed(req, p)
		if err != nil {
			t.Fatalf("%s %s: %v", req.Harness, req.Event, err)
		}
		if strings.Contains(resp.Stdout, "wrm.") && req.Event != "PostToolUse" {
			injected++
		}
		for _, e := range resp.Effects {
			switch {
			case e.Op == abi.OpTally && e.Name == abi.TallyCapture:
				captured++
			case e.Op == abi.OpStoreEvent && e.Event != nil:
				stored++
				if body := e.Event.Response + e.Event.Text; strings.Contains(body, "[REDACTED") && !strings.Contains(body, "ghp_") {
					redacted++
				}
			}
		}
	}
	if injected < 2 || captured < 1 || stored < 2 || redacted < 2 {
		t.Fatalf("the samples no longer exercise the hot paths: %d token injections (want 2), %d captures (1), %d events stored (2), %d redacted (2)",
			injected, captured, stored, redacted)
	}
}

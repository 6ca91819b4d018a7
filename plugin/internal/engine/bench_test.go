package engine

import (
	"os"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/redact"
)

func benchPayload(b *testing.B) string {
	p, err := os.ReadFile("../../../testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json")
	if err != nil {
		b.Fatal(err)
	}
	return string(p)
}

// BenchmarkHandlePostToolUse is one capture decision on a real ~6 KB
// Claude Code payload, natively (the wasm runs the same code).
func BenchmarkHandlePostToolUse(b *testing.B) {
	req := abi.HandleRequest{Harness: abi.HarnessClaudeCode, Payload: benchPayload(b),
		Config: abi.Config{Servers: map[string]abi.ServerConfig{"tickets": {Relay: true}}}}
	b.SetBytes(int64(len(req.Payload)))
	for b.Loop() {
		if _, err := Handle(req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRedact(b *testing.B) {
	s := benchPayload(b)
	r := redact.New("tok_0123456789abcdef")
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		r.String(s)
	}
}

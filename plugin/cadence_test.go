package plugin_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/conformance"
	"github.com/google/go-cmp/cmp"
)

// TestNudgeCadence drives 22 external MCP calls of one session through the
// real plugin.wasm, carrying state from each call's effects into the next
// request exactly as a host does, and records which calls were nudged.
func TestNudgeCadence(t *testing.T) {
	payload, err := os.ReadFile("../testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	wasm := loadWasm(t)
	tests := []struct {
		env  string // CTXHOOK_NUDGE_EVERY; "-" = unset
		want []int
	}{
		{"-", []int{1, 11, 21}},
		{"3", []int{1, 4, 7, 10, 13, 16, 19, 22}},
		{"1", seq(1, 22)},
		{"100", []int{1}},
		{"0", []int{1, 11, 21}},
		{"-1", []int{1, 11, 21}},
		{"9999", []int{1, 11, 21}},
		{"abc", []int{1, 11, 21}},
		{"", []int{1, 11, 21}},
	}
	for _, tt := range tests {
		t.Run("CTXHOOK_NUDGE_EVERY="+tt.env, func(t *testing.T) {
			state := map[string]string{}
			var fired []int
			for call := 1; call <= 22; call++ {
				req := abi.HandleRequest{Harness: abi.HarnessClaudeCode, Event: "PostToolUse", Payload: string(payload),
					State: state, NowMS: conformance.NowMS}
				if tt.env != "-" {
					req.Env = map[string]string{abi.EnvNudgeEvery: tt.env}
				}
				resp, err := wasm.Handle(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(resp.Stdout, "additionalContext") {
					fired = append(fired, call)
				}
				next := map[string]string{}
				for k, v := range state {
					next[k] = v
				}
				for _, e := range resp.Effects {
					if e.Op == abi.OpSetState {
						next[e.Key] = e.Value
					}
				}
				state = next
			}
			if diff := cmp.Diff(tt.want, fired); diff != "" {
				t.Errorf("nudged calls (-want +got):\n%s", diff)
			}
		})
	}
}

func seq(a, b int) []int {
	var out []int
	for i := a; i <= b; i++ {
		out = append(out, i)
	}
	return out
}

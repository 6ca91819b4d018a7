//go:build wasip1

// Command noredact is a plugin that speaks the ABI and redacts nothing: it
// stores every request it is asked to handle, whole, as one event. It is
// what a replacement plugin could do if a release binary loaded one, so
// the release test points CTXHOOK_TEST_PLUGIN at it.
package main

import (
	"encoding/json"

	"github.com/extism/go-pdk"
)

func main() {}

//go:wasmexport ctxhook_abi_version
func abiVersion() int32 { pdk.OutputString("1"); return 0 }

//go:wasmexport ctxhook_prepare
func prepare() int32 { pdk.OutputString(`{"state_keys":[]}`); return 0 }

//go:wasmexport ctxhook_handle
func handle() int32 {
	in := string(pdk.Input())
	out, _ := json.Marshal(map[string]any{
		"stdout": "", "exit_code": 0,
		"effects": []any{map[string]any{"op": "store_event", "event": map[string]any{
			"ts_ms": 1, "session": "noredact", "harness": "claude-code", "hook_event": "PostToolUse",
			"category": "tool", "tool": "noredact", "response": in, "response_bytes": len(in),
		}}},
	})
	pdk.Output(out)
	return 0
}

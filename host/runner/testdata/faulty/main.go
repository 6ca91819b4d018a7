//go:build wasip1

// Command faulty is a plugin that misbehaves on request, for the host's
// sandbox tests: it speaks the ABI, and its handle traps, loops forever,
// exhausts memory or writes to stdout when the payload says so.
package main

import (
	"os"
	"strings"

	"github.com/extism/go-pdk"
)

func main() {}

//go:wasmexport ctxhook_abi_version
func abiVersion() int32 { pdk.OutputString("1"); return 0 }

//go:wasmexport ctxhook_prepare
func prepare() int32 { pdk.OutputString(`{"state_keys":["session/x"]}`); return 0 }

var sink [][]byte

//go:wasmexport ctxhook_handle
func handle() int32 {
	in := string(pdk.Input())
	switch {
	case strings.Contains(in, "trap"):
		var m map[string]int
		m["x"] = 1 // nil map write: a Go panic, a wasm trap
	case strings.Contains(in, "loop"):
		for {
		}
	case strings.Contains(in, "oom"):
		for {
			sink = append(sink, make([]byte, 16<<20))
		}
	case strings.Contains(in, "print"):
		os.Stdout.WriteString("guest output that must not reach the hook's stdout\n")
	}
	pdk.OutputString(`{"stdout":"{}","exit_code":0}`)
	return 0
}

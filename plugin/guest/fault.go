//go:build wasip1 && ctxhook_testfault

package main

import (
	"strings"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// A plugin for fault tests only (go build -tags ctxhook_testfault): the
// real plugin, except that deciding an MCP proxy response that holds
// CTXHOOK_TEST_TRAP traps, one that holds CTXHOOK_TEST_HANG never
// returns, and one that holds CTXHOOK_TEST_SLOW is decided after a few
// seconds of spinning (a decision past its deadline that still ends).
// Other events on the same message (the proxy's strip) are untouched.
func init() {
	testFault = func(event, payload string) {
		if event != abi.ProxyResponse {
			return
		}
		switch {
		case strings.Contains(payload, "CTXHOOK_TEST_TRAP"):
			var m map[string]int
			m["trap"] = 1 // a nil map write: a Go panic, a wasm trap
		case strings.Contains(payload, "CTXHOOK_TEST_HANG"):
			for {
			}
		case strings.Contains(payload, "CTXHOOK_TEST_SLOW"):
			for i := 0; i < 3_000_000_000; i++ {
				spun += i
			}
		}
	}
}

// spun keeps CTXHOOK_TEST_SLOW's loop from being optimised away.
var spun int

//go:build wasip1

// Command guest is plugin.wasm: thin //go:wasmexport shims that move JSON
// between the Extism host and package engine. No logic lives here.
package main

import (
	"encoding/json"
	"strconv"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/engine"
	"github.com/extism/go-pdk"
)

// main is required by the c-shared build mode and never runs as a program.
func main() {}

//go:wasmexport ctxhook_abi_version
func abiVersion() int32 {
	pdk.OutputString(strconv.Itoa(abi.Version))
	return 0
}

//go:wasmexport ctxhook_prepare
func prepare() int32 {
	var req abi.PrepareRequest
	if err := json.Unmarshal(pdk.Input(), &req); err != nil {
		return fail("prepare: decode request: " + err.Error())
	}
	resp, err := engine.Prepare(req)
	if err != nil {
		return fail(err.Error())
	}
	return output(resp)
}

//go:wasmexport ctxhook_handle
func handle() int32 {
	var req abi.HandleRequest
	if err := json.Unmarshal(pdk.Input(), &req); err != nil {
		return fail("handle: decode request: " + err.Error())
	}
	resp, err := engine.Handle(req)
	if err != nil {
		return fail(err.Error())
	}
	return output(resp)
}

func output(v any) int32 {
	b, err := json.Marshal(v)
	if err != nil {
		return fail("encode response: " + err.Error())
	}
	pdk.Output(b)
	return 0
}

func fail(msg string) int32 {
	pdk.SetErrorString(msg)
	return 1
}

//go:build wasip1

// Command guest is plugin.wasm: thin //go:wasmexport shims that move JSON
// between the Extism host and package engine. No logic lives here.
package main

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/engine"
	"github.com/extism/go-pdk"
)

// main is required by the c-shared build mode and never runs as a program.
func main() {}

// held is the payload the last prepare parsed, until the handle after it
// uses it (abi.PrepareResponse.Prepared). Only the very next handle may:
// seq names it, so a handle can never decide on another hook's payload.
var held struct {
	id     string
	parsed engine.Parsed
}

var seq int

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
	return prepared(engine.ParsePayload(req.Harness, req.Payload))
}

//go:wasmexport ctxhook_prepare_raw
func prepareRaw() int32 {
	in := pdk.Input()
	nl := bytes.IndexByte(in, '\n')
	if nl < 0 {
		return fail("prepare_raw: no header line")
	}
	var hdr abi.PrepareRequest
	if err := json.Unmarshal(in[:nl], &hdr); err != nil {
		return fail("prepare_raw: decode header: " + err.Error())
	}
	return prepared(engine.ParsePayload(hdr.Harness, string(in[nl+1:])))
}

func prepared(p engine.Parsed) int32 {
	held.id, held.parsed = "", engine.Parsed{}
	resp, err := p.Prepare()
	if err != nil {
		return fail(err.Error())
	}
	seq++
	held.id, held.parsed = "p"+strconv.Itoa(seq), p
	resp.Prepared = held.id
	return output(resp)
}

//go:wasmexport ctxhook_handle
func handle() int32 {
	var req abi.HandleRequest
	if err := json.Unmarshal(pdk.Input(), &req); err != nil {
		return fail("handle: decode request: " + err.Error())
	}
	p := held.parsed
	ok := req.Prepared != "" && req.Prepared == held.id && p.Harness() == req.Harness
	held.id, held.parsed = "", engine.Parsed{}
	if req.Prepared == "" {
		p = engine.ParsePayload(req.Harness, req.Payload)
	} else if !ok {
		return fail(abi.ErrNotPrepared + ": " + req.Prepared)
	}
	resp, err := engine.HandleParsed(req, p)
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

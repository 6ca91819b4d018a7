//go:build wasip1

// Command guest is plugin.wasm: thin //go:wasmexport shims that move JSON
// between the Extism host and package engine. No logic lives here.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unsafe"

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

//go:wasmexport ctxhook_prepare_fd
func prepareFD() int32 {
	var req abi.PrepareRequest
	if err := json.Unmarshal(pdk.Input(), &req); err != nil {
		return fail("prepare_fd: decode request: " + err.Error())
	}
	payload, err := readStdin(req.PayloadBytes)
	if err != nil {
		return fail("prepare_fd: " + err.Error())
	}
	if testFault != nil {
		testFault(req.Event, payload)
	}
	return prepared(engine.ParsePayload(req.Harness, payload))
}

// testFault is nil in plugin.wasm. A build with the ctxhook_testfault tag
// (fault.go) sets it, so the host's tests can make a real plugin trap or
// hang on one chosen message and check that it costs that message only.
var testFault func(event, payload string)

// readStdin reads the n bytes of bulk input the host put on fd 0. The
// string shares the buffer: nothing writes to it afterwards.
func readStdin(n int) (string, error) {
	if n <= 0 {
		return "", nil
	}
	// Not cleared first (strings.Builder allocates so): the read fills it.
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte(0)
	buf := unsafe.Slice(unsafe.StringData(sb.String()), n)
	if _, err := io.ReadFull(os.Stdin, buf); err != nil {
		return "", fmt.Errorf("read %d payload bytes from stdin: %v", n, err)
	}
	return unsafe.String(&buf[0], n), nil
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
	resp, err := decide(req)
	if err != nil {
		return fail(err.Error())
	}
	return output(resp)
}

// decide runs a handle request on the payload it carries, or on the one
// the prepare just before kept.
func decide(req abi.HandleRequest) (abi.HandleResponse, error) {
	p := held.parsed
	ok := req.Prepared != "" && req.Prepared == held.id && p.Harness() == req.Harness
	held.id, held.parsed = "", engine.Parsed{}
	if req.Prepared == "" {
		p = engine.ParsePayload(req.Harness, req.Payload)
	} else if !ok {
		return abi.HandleResponse{}, fmt.Errorf("%s: %s", abi.ErrNotPrepared, req.Prepared)
	}
	return engine.HandleParsed(req, p)
}

//go:wasmexport ctxhook_handle_fd
func handleFD() int32 {
	var req abi.HandleRequest
	if err := json.Unmarshal(pdk.Input(), &req); err != nil {
		return fail("handle_fd: decode request: " + err.Error())
	}
	payload, err := readStdin(req.PayloadBytes)
	if err != nil {
		return fail("handle_fd: " + err.Error())
	}
	req.Payload = payload
	for i := range req.Files {
		if f := &req.Files[i]; f.Content == "" && f.Bytes > 0 {
			if f.Content, err = readStdin(f.Bytes); err != nil {
				return fail("handle_fd: file " + f.Path + ": " + err.Error())
			}
		}
	}
	resp, err := decide(req)
	if err != nil {
		return fail(err.Error())
	}
	blobs := abi.DetachBlobs(&resp)
	for _, b := range blobs {
		if _, err := os.Stdout.Write(unsafe.Slice(unsafe.StringData(b), len(b))); err != nil {
			return fail("handle_fd: write blob: " + err.Error())
		}
	}
	return output(resp)
}

// warm decides engine.WarmSamples the way the exports above decide a
// host's input (the JSON of the request, the parse, the decision, the
// blobs and the JSON of the answer), and keeps nothing: the prepared
// payload a host may be about to use is left as it was.
//
//go:wasmexport ctxhook_warm
func warm() int32 {
	for _, s := range engine.WarmSamples() {
		if err := warmOne(s); err != nil {
			return fail("warm: " + err.Error())
		}
	}
	pdk.OutputString("ok")
	return 0
}

func warmOne(s abi.HandleRequest) error {
	hdr, err := json.Marshal(s)
	if err != nil {
		return err
	}
	var req abi.HandleRequest
	if err := json.Unmarshal(hdr, &req); err != nil {
		return err
	}
	p := engine.ParsePayload(req.Harness, req.Payload)
	if _, err := p.Prepare(); err != nil {
		return err
	}
	resp, err := engine.HandleParsed(req, p)
	if err != nil {
		return err
	}
	abi.DetachBlobs(&resp)
	_, err = json.Marshal(resp)
	return err
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

// Package plugin ships the ctxhook core as a WebAssembly module.
//
// plugin.wasm is committed so that `go install` works without make. It is
// reproducible; rebuild it with `make plugin` and check it with
// `make verify.wasm`, which runs:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -buildvcs=false -ldflags="-s -w" -o plugin/plugin.wasm ./plugin/guest
//
// plugin.wasm.sha256 records its digest; a test checks the two agree.
package plugin

import _ "embed"

// Wasm is the compiled core. Every host loads exactly these bytes.
//
//go:embed plugin.wasm
var Wasm []byte

// SHA256 is the hex digest of Wasm as recorded when it was built.
//
//go:embed plugin.wasm.sha256
var SHA256 string

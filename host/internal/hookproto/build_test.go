package hookproto_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/plugin"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/wasmsum"
)

// TestWasmSum: the generated constant the hook client and the daemon
// compare in their handshake names the embedded plugin.wasm, and the
// handshake's ABI version is the ABI's.
func TestWasmSum(t *testing.T) {
	sum := sha256.Sum256(plugin.Wasm)
	if got := hex.EncodeToString(sum[:]); got != wasmsum.SHA256 {
		t.Errorf("wasmsum.SHA256 = %s, plugin.wasm is %s: run make plugin", wasmsum.SHA256, got)
	}
	if hookproto.ABIVersion != abi.Version {
		t.Errorf("hookproto.ABIVersion %d, abi.Version %d", hookproto.ABIVersion, abi.Version)
	}
}

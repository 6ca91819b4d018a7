package hookproto_test

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime/debug"
	"strings"
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

// TestIDOf: the id a binary's build information gives is the one that
// binary computes for itself, and VCS stamps change it: a program built
// without them (go run under GOFLAGS=-buildvcs=false) is another build.
func TestIDOf(t *testing.T) {
	bi, _ := debug.ReadBuildInfo()
	if hookproto.ID() != hookproto.IDOf(bi) {
		t.Fatalf("ID() = %q, IDOf(own build info) = %q", hookproto.ID(), hookproto.IDOf(bi))
	}
	stamped := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}}
	plain := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
	if hookproto.IDOf(stamped) == hookproto.IDOf(plain) || !strings.HasSuffix(hookproto.IDOf(stamped), "/(devel)/abc/false") {
		t.Fatalf("VCS stamps not in the id: %q against %q", hookproto.IDOf(stamped), hookproto.IDOf(plain))
	}
}

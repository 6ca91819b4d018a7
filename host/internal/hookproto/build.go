// The build a client and a daemon must share to talk.

package hookproto

import (
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/ctxhook/ctxhook/plugin/wasmsum"
)

// ABIVersion mirrors abi.Version (checked by a test); the client must not
// link the abi package's encoding/json.
const ABIVersion = 1

// ID names this build: the plugin, the ABI and the module version. A
// client and a daemon of different builds never talk. It is computed
// once: the proxy asks the daemon twice per tools/call, and parsing the
// build information each time was 7% of the proxy's CPU.
func ID() string { return buildID() }

var buildID = sync.OnceValue(func() string {
	bi, _ := debug.ReadBuildInfo()
	return IDOf(bi)
})

// IDOf is ID for a build described by bi (nil: no build information), as
// debug/buildinfo reads it from another binary of the same source: a
// benchmark built apart can then speak to that binary's daemon.
func IDOf(bi *debug.BuildInfo) string {
	id := wasmsum.SHA256[:16] + "/abi" + strconv.Itoa(ABIVersion)
	if bi != nil {
		id += "/" + bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				id += "/" + s.Value
			}
		}
	}
	return id
}

// EnvRequestID carries a hook's request id to a process that runs the
// hook (a finisher, the in-process `ctxhook hook`, `ctxhook io`). The
// daemon is told it in a field of the request (Request.ID), never
// through an environment.
const EnvRequestID = "CTXHOOK_REQUEST_ID"

// RequestID names one hook request (EnvRequestID): the hook client
// gives one to every hook, and `ctxhook hook` to a hook run without the
// client, so a hook re-run in-process or finished late stores its events
// once.
func RequestID() string {
	return strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + strconv.Itoa(os.Getpid())
}

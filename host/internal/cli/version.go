package cli

import (
	"github.com/ctxhook/ctxhook/host/internal/testhooks"

	"context"
	"fmt"
	"runtime"
	"strings"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/version"
	"github.com/ctxhook/ctxhook/plugin"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

func runVersion(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "version", "", "Print version information.")
	if _, code, ok := parse(flags, args); !ok {
		return code
	}
	fmt.Fprintf(env.Stdout, "ctxhook %s (commit %s, %s, %s/%s)\nplugin  ABI %d, %d bytes, sha256 %s\nstore   schema %d\n",
		version.Number, version.Commit(), runtime.Version(), runtime.GOOS, runtime.GOARCH, abi.Version, len(plugin.Wasm), strings.TrimSpace(plugin.SHA256), store.SchemaVersion)
	if testhooks.Enabled {
		fmt.Fprintln(env.Stdout, knobBuildWarning)
	}
	return 0
}

// knobBuildWarning is what version and doctor say in a binary built with
// the test knobs: whoever sets CTXHOOK_TEST_PLUGIN there chooses the
// plugin that decides and redacts, so such a binary is never for users.
const knobBuildWarning = "WARNING: TEST-KNOB BUILD (-tags " + testhooks.Tag + "): CTXHOOK_TEST_PLUGIN and other test variables change what decides and where it writes; do not use it outside tests"

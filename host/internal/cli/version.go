package cli

import (
	"context"
	"fmt"
	"runtime"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

func runVersion(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "version", "", "Print version information.")
	if _, code, ok := parse(flags, args); !ok {
		return code
	}
	sum := plugin.SHA256
	if len(sum) > 12 {
		sum = sum[:12]
	}
	fmt.Fprintf(env.Stdout, "ctxhook %s (%s, %s/%s)\nplugin  ABI %d, %d bytes, sha256 %s\nstore   schema %d\n",
		Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH, abi.Version, len(plugin.Wasm), sum, store.SchemaVersion)
	return 0
}

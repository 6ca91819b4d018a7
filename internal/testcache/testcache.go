// Package testcache is where tests keep what is worth sharing between
// test runs (the plugin's compilation cache): $CTXHOOK_TEST_CACHE, which
// make test sets inside the checkout, or else the user's cache
// directory. make test so leaves nothing in the user's home.
package testcache

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/ctxhook/ctxhook/host/runner"
)

// Dir returns the directory name under the test cache, created 0700.
func Dir(name string) string {
	base := os.Getenv("CTXHOOK_TEST_CACHE")
	if base == "" {
		base, _ = os.UserCacheDir()
	}
	d := filepath.Join(base, name)
	os.MkdirAll(d, 0o700)
	return d
}

// SharedWasm is the compilation cache that test homes share (the
// proxy's tests link theirs to it too).
const SharedWasm = "ctxhook-test-wasm"

// LinkWasm points the compilation cache of a CTXHOOK_HOME, home/cache/
// wasm, at the one the tests share: CTXHOOK_HOME moves the cache with
// the state, so a test home of its own otherwise compiles plugin.wasm
// again (3-4 s on two cores) on its first hook. The link is the user's,
// in a directory of the user's, which the runner accepts
// (platform.OwnedDir). A test of a cold cache, or one that changes the
// cache itself, keeps its own and does not call it. Where no link can be
// made (Windows without the privilege) the home keeps a cache of its own.
//
// The shared cache is filled first, both builds, once per test process:
// go test runs packages side by side, and a hook that finds another
// process compiling the plugin answers at once without a decision, by
// design (runner.ErrCold), which a test that waits for a decision would
// take for a failure. Filling it here waits for such a compilation.
func LinkWasm(home string) {
	fillOnce.Do(fillShared)
	cache := filepath.Join(home, "cache")
	if os.MkdirAll(cache, 0o700) == nil {
		os.Symlink(Dir(SharedWasm), filepath.Join(cache, "wasm"))
	}
}

var fillOnce sync.Once

// fillShared loads the plugin, with and without cancellation checks,
// from the shared cache, compiling it there or waiting for the process
// that does. A failure is left to the tests, which then compile it
// themselves as before.
func fillShared() {
	ctx := context.Background()
	for _, noInterrupt := range []bool{false, true} {
		if r, err := runner.New(ctx, runner.Options{CacheDir: Dir(SharedWasm), NoInterrupt: noInterrupt}); err == nil {
			r.Close(ctx)
		}
	}
}

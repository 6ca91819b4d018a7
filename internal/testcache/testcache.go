// Package testcache is where tests keep what is worth sharing between
// test runs (the plugin's compilation cache): $CTXHOOK_TEST_CACHE, which
// make test sets inside the checkout, or else the user's cache
// directory. make test so leaves nothing in the user's home.
package testcache

import (
	"os"
	"path/filepath"
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
func LinkWasm(home string) {
	cache := filepath.Join(home, "cache")
	if os.MkdirAll(cache, 0o700) == nil {
		os.Symlink(Dir(SharedWasm), filepath.Join(cache, "wasm"))
	}
}

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

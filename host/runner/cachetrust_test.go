//go:build unix

package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// cacheFiles lists the compiled entries under dir (files, not markers).
func cacheFiles(t *testing.T, dir string) []string {
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), "ready-") && d.Name() != "compile.lock" {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// loadWorks loads the plugin with the cache at dir and checks that it
// decides; it returns whether the cache was used and what was warned.
func loadWorks(t *testing.T, dir string) (cached bool, warned string) {
	t.Helper()
	ctx := context.Background()
	var w strings.Builder
	r, err := New(ctx, Options{CacheDir: dir, Warn: func(s string) { w.WriteString(s + "\n") }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	if _, err := r.Prepare(ctx, prepareReq(t)); err != nil {
		t.Fatalf("the plugin does not decide: %v", err)
	}
	return LastCompileCached(), w.String()
}

func prepareReq(t *testing.T) abi.PrepareRequest {
	b, err := os.ReadFile("../../testdata/payloads/claude-code/2.1.330/hook-PreToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	return abi.PrepareRequest{Harness: abi.HarnessClaudeCode, Event: "PreToolUse", Payload: string(b)}
}

// TestCacheTrust: compiled native code is run only from a cache that is
// the user's alone. A real compiled entry is planted (modified, and owned
// by another user) and shown not to be loaded: it is removed before the
// cache is opened. A cache directory of another user's, or one others
// may write, is not used at all.
func TestCacheTrust(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wasm")
	if cached, w := loadWorks(t, dir); !cached || w != "" {
		t.Fatalf("a fresh private cache: cached %v, warned %q", cached, w)
	}
	entries := cacheFiles(t, dir)
	if len(entries) == 0 {
		t.Fatal("nothing was compiled into the cache")
	}
	if cached, _ := loadWorks(t, dir); !cached {
		t.Fatal("the warm cache was not used")
	}

	// Others may write the directory: not used, not touched.
	os.Chmod(dir, 0o777)
	if cached, w := loadWorks(t, dir); cached || !strings.Contains(w, "writable by others") {
		t.Errorf("a 0777 cache dir: cached %v, warned %q", cached, w)
	}
	os.Chmod(dir, 0o700)

	// A planted entry: a real compiled entry, modified, writable by
	// others (and, as root, owned by another user).
	planted := entries[0]
	code, _ := os.ReadFile(planted)
	mark := []byte("PLANTED-NATIVE-CODE")
	copy(code[len(code)/2:], mark)
	os.WriteFile(planted, code, 0o666)
	os.Chmod(planted, 0o666)
	if os.Geteuid() == 0 {
		os.Chown(planted, 65534, 65534)
	}
	cached, w := loadWorks(t, dir)
	if !strings.Contains(w, "emptied the compilation cache") {
		t.Errorf("a planted entry: warned %q", w)
	}
	if b, err := os.ReadFile(planted); err == nil && bytes.Contains(b, mark) {
		t.Fatalf("the planted entry is still in the cache (cached %v)", cached)
	}
	if cached, w := loadWorks(t, dir); !cached || w != "" {
		t.Errorf("after the cache was emptied and filled again: cached %v, warned %q", cached, w)
	}

	if os.Geteuid() != 0 {
		t.Log("not root: a cache directory owned by another user is not tried (needs chown)")
		return
	}
	// A root-run hook with a user's HOME: the user's cache is not root's.
	os.Chown(dir, 65534, 65534)
	if cached, w := loadWorks(t, dir); cached || !strings.Contains(w, "owned by uid 65534") {
		t.Errorf("a cache dir of uid 65534: cached %v, warned %q", cached, w)
	}
	if len(cacheFiles(t, dir)) == 0 {
		t.Error("another user's cache was emptied: it must not be touched")
	}
}

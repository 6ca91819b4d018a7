package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/flock"
	"github.com/ctxhook/ctxhook/plugin"
)

// coldWait bounds how long a process waits for another to fill the
// compilation cache before it compiles on its own.
const coldWait = 8 * time.Second

// coldLock serialises the first compilation of a module into the cache.
// Sixteen hooks starting at once after an install would otherwise each
// compile the module (about 2 s of CPU each), and on two cores every one
// of them would take ten times as long as the first alone. With the
// lock, one compiles and the rest load its result from the cache.
//
// A marker file, written once the cache holds the module, keeps the warm
// path lock-free: a process that finds it takes no lock at all. The
// returned release is called with whether compilation succeeded; it is
// nil when no lock is needed. Every failure here (no lock file, a lock
// never released) ends in compiling without the lock, as before.
//
// The two builds of a module (with and without cancellation checks) are
// two cache entries compiled separately, so each has its own marker: a
// daemon's build being ready says nothing of the proxy's.
func coldLock(ctx context.Context, dir string, wasm []byte, noInterrupt bool) (release func(ok bool)) {
	build := "interruptible"
	if noInterrupt {
		build = "fast"
	}
	marker := filepath.Join(dir, "ready-"+moduleKey(wasm)+"-"+build)
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(dir, "compile-"+build+".lock"), os.O_CREATE|os.O_RDWR|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil
	}
	locked := false
	deadline := time.Now().Add(coldWait)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	for {
		if flock.TryLock(f) == nil {
			locked = true
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			break // compile without the lock rather than miss the deadline
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(marker); err == nil {
		f.Close() // filled while we waited: load from the cache at once
		return nil
	}
	return func(ok bool) {
		if ok {
			if m, err := os.OpenFile(marker, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
				m.Close()
			}
		}
		if locked {
			flock.Unlock(f)
		}
		f.Close()
	}
}

// moduleKey names a module and the compiler that compiled it: wazero's
// cache is keyed by both, so a new wazero starts cold again.
func moduleKey(wasm []byte) string {
	sum := plugin.SHA256
	if len(wasm) == 0 || len(wasm) != len(plugin.Wasm) || &wasm[0] != &plugin.Wasm[0] {
		s := sha256.Sum256(wasm)
		sum = hex.EncodeToString(s[:])
	}
	if len(sum) > 16 {
		sum = sum[:16]
	}
	key := sum
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/tetratelabs/wazero" {
				key += "-" + d.Version
			}
		}
	}
	return key
}

package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/host/internal/testhooks"
	"github.com/ctxhook/ctxhook/plugin"
)

// ErrCold is returned when the plugin is not in the compilation cache yet
// and another process is compiling it: the caller's deadline came first.
// A hook then answers without a decision and hands its payload on (the
// finisher has minutes); it does not compile beside the process that
// already does.
var ErrCold = errors.New("runner: the plugin is still being compiled by another process")

// coldWaitMax bounds how long a process with no deadline of its own (the
// daemon, the proxy) waits for another to fill the cache. A compilation
// takes seconds; a holder that keeps the lock this long is stuck (stopped
// by a debugger, say), and waiting on would only stop this process too.
const coldWaitMax = 2 * time.Minute

// coldPoll is how often a waiter looks for the marker and the lock.
const coldPoll = 20 * time.Millisecond

// coldLock serialises the first compilation of a module into the cache.
// Sixteen hooks starting at once after an install would otherwise each
// compile the module (about 2 s of CPU each), and on two cores every one
// of them would take ten times as long as the first alone. With the
// lock, one compiles and the rest load its result from the cache.
//
// A waiter never compiles on its own while the holder lives (the lock is
// the kernel's: it goes with the holder's process): a waiter that gave up
// and compiled would slow the holder and every other waiter, and on a
// loaded machine they then all missed their deadlines together. A waiter
// whose ctx ends first gets ErrCold; one with no deadline waits up to
// coldWaitMax. A dead holder leaves the lock to the next waiter.
//
// A caller that must not wait (wait false: Options.HandOnCold) gets
// ErrCold as soon as it finds the lock held, whatever its deadline.
//
// A marker file, written once the cache holds the module, keeps the warm
// path lock-free: a process that finds it takes no lock at all. The
// returned release is called with whether compilation succeeded; it is
// nil when no lock is needed. A lock file that cannot be opened ends in
// compiling without the lock, as before.
//
// The two builds of a module (with and without cancellation checks) are
// two cache entries compiled separately, so each has its own marker: a
// daemon's build being ready says nothing of the proxy's.
func coldLock(ctx context.Context, dir string, wasm []byte, noInterrupt, wait bool) (release func(ok bool), err error) {
	marker := markerPath(dir, wasm, noInterrupt)
	if _, err := os.Stat(marker); err == nil {
		return nil, nil
	}
	f, err := os.OpenFile(lockPath(dir, noInterrupt), os.O_CREATE|os.O_RDWR|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, nil
	}
	locked := false
	giveUp := time.Now().Add(coldWaitMax)
	for {
		if platform.TryLock(f) == nil {
			locked = true
			break
		}
		if _, err := os.Stat(marker); err == nil {
			f.Close() // filled while we waited: load from the cache at once
			return nil, nil
		}
		if ctx.Err() != nil || !wait {
			f.Close()
			return nil, ErrCold
		}
		if _, ok := ctx.Deadline(); !ok && time.Now().After(giveUp) {
			break // a stuck holder: compile without the lock
		}
		time.Sleep(coldPoll)
	}
	if _, err := os.Stat(marker); err == nil {
		platform.Unlock(f)
		f.Close() // filled while we waited for the lock
		return nil, nil
	}
	return func(ok bool) {
		if ok {
			if m, err := os.OpenFile(marker, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
				m.Close()
			}
		}
		if locked {
			platform.Unlock(f)
		}
		f.Close()
	}, nil
}

func buildName(noInterrupt bool) string {
	if noInterrupt {
		return "fast"
	}
	return "interruptible"
}

func markerPath(dir string, wasm []byte, noInterrupt bool) string {
	return filepath.Join(dir, "ready-"+moduleKey(wasm)+"-"+buildName(noInterrupt))
}

func lockPath(dir string, noInterrupt bool) string {
	return filepath.Join(dir, "compile-"+buildName(noInterrupt)+".lock")
}

// Ready reports whether the cache in dir holds the compiled plugin (wasm
// nil: the embedded one) of the given build, so that loading it costs
// milliseconds, not a compilation.
func Ready(dir string, wasm []byte, noInterrupt bool) bool {
	if wasm == nil {
		wasm = plugin.Wasm
	}
	_, err := os.Stat(markerPath(dir, wasm, noInterrupt))
	return err == nil
}

// Compiling reports whether a process holds the compile lock of the given
// build in dir: it is compiling the plugin into the cache. Looking takes
// the lock for an instant; a process that wants it then gets it on its
// next try (coldPoll).
func Compiling(dir string, noInterrupt bool) bool {
	f, err := os.OpenFile(lockPath(dir, noInterrupt), os.O_RDWR|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return false
	}
	defer f.Close()
	if platform.TryLock(f) != nil {
		return true
	}
	platform.Unlock(f)
	return false
}

// logCompile appends a line for each compilation of the plugin (a load
// that found no ready marker) to testhooks.CompileLog: the tests of a cold
// start count compilations across processes with it. A release build has
// none.
func logCompile(noInterrupt bool, took time.Duration) {
	name := testhooks.CompileLog()
	if name == "" {
		return
	}
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%d %s %s\n", os.Getpid(), buildName(noInterrupt), took.Round(time.Millisecond))
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

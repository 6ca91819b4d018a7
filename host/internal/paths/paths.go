// Package paths says where ctxhook keeps its files.
//
// Data (the store, session state, the spool) goes to
// $XDG_STATE_HOME/ctxhook (default ~/.local/state/ctxhook), the compilation
// cache to the user cache dir, the config to
// $XDG_CONFIG_HOME/ctxhook/config.toml. CTXHOOK_HOME moves all three under
// one directory, which is what tests and the demo use.
package paths

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxhook/ctxhook/host/internal/platform"
)

// Paths are the resolved locations. Every directory is created 0700.
type Paths struct {
	Data   string // store, state, spool
	Cache  string // wazero compilation cache
	Config string // config.toml (a file)
}

// DB is the SQLite store.
func (p Paths) DB() string { return filepath.Join(p.Data, "ctxhook.db") }

// StateDir holds one JSON document per agent session.
func (p Paths) StateDir() string { return filepath.Join(p.Data, "sessions") }

// SpoolDir holds events that could not be written to the store yet.
func (p Paths) SpoolDir() string { return filepath.Join(p.Data, "spool") }

// WasmCache is the compilation cache directory.
func (p Paths) WasmCache() string { return filepath.Join(p.Cache, "wasm") }

// Resolve computes Paths from an environment lookup (os.Getenv in
// production, a map in tests).
func Resolve(getenv func(string) string) (Paths, error) {
	if h := getenv("CTXHOOK_HOME"); h != "" {
		h, err := filepath.Abs(h)
		if err != nil {
			return Paths{}, err
		}
		return Paths{
			Data:   filepath.Join(h, "state"),
			Cache:  filepath.Join(h, "cache"),
			Config: filepath.Join(h, "config", "config.toml"),
		}, nil
	}
	d, err := platform.DefaultDirs(getenv)
	return Paths{Data: d.Data, Cache: d.Cache, Config: d.Config}, err
}

// EnsureDir creates dir (and parents) and forces it to 0700 whatever the
// umask, since it holds captured tool output.
//
// A directory that is not this user's alone is refused (package owned):
// one another user created first (a shared CTXHOOK_HOME, the socket's
// fallback under /tmp), a symbolic link of theirs, or one whose parents
// they can change. It is not chmod-ed either: chmod follows a link to
// its target.
//
// Only directories that are ctxhook's are chmod-ed: the ones this call
// creates, and an existing one on a path through a directory named
// ctxhook* (one an older release made 0755). A store opened at
// /tmp/x.db, or a config file directly in $HOME, must never make /tmp or
// $HOME private: as root that took /tmp's 1777 away.
func EnsureDir(dir string) error {
	dir = filepath.Clean(dir)
	var created []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		created = append(created, d)
	}
	if len(created) > 0 {
		if err := platform.MayCreate(dir); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, d := range created {
		platform.Tighten(d)
	}
	if len(created) == 0 && ours(dir) {
		platform.Tighten(dir)
	}
	return platform.OwnedDir(dir)
}

// ours reports whether dir lies in a directory named ctxhook*.
func ours(dir string) bool {
	for _, part := range strings.Split(filepath.ToSlash(dir), "/") {
		if strings.HasPrefix(strings.ToLower(part), "ctxhook") {
			return true
		}
	}
	return false
}

// Installs is install's journal: each harness file it changed, as it was
// before (package install, Journal).
func (p Paths) Installs() string { return filepath.Join(p.Data, "installs") }

// Bin holds the copies of ctxhook's binaries that install makes when it
// runs from a place that may be deleted (npx's cache, a temporary
// directory): one directory per build, owner-only, removed by the
// uninstall that leaves no file naming it (package install,
// PlanStable). Not the cache directory: clearing a cache must not
// disable the hooks.
func (p Paths) Bin() string { return filepath.Join(p.Data, "bin") }

// DaemonDir holds the daemon's lock and socket (0700).
func (p Paths) DaemonDir() string { return filepath.Join(p.Data, "daemon") }

// Socket is the daemon's Unix socket. A Unix socket path is limited to
// about 100 bytes; a deeper data directory gets its socket under the
// system's temp dir instead, in a 0700 directory named for the user and
// a hash of the data directory.
func (p Paths) Socket() string {
	s := filepath.Join(p.DaemonDir(), "sock")
	if len(s) < 100 {
		return s
	}
	var h uint32 = 2166136261
	for i := 0; i < len(p.Data); i++ {
		h = (h ^ uint32(p.Data[i])) * 16777619
	}
	return filepath.Join(os.TempDir(), "ctxhook-"+itoa(os.Getuid())+"-"+itoa(int(h)), "sock")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

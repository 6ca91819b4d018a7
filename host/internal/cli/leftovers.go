package cli

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/platform"
)

// leftover is a file or directory in the user's ctxhook directories that
// another uid owns: most often root's, left by a run as root with the
// user's HOME before such runs stopped creating anything there. Hooks
// of the user cannot write into it (a spool that takes nothing loses the
// events whenever the store is unavailable).
type leftover struct {
	path  string
	uid   int
	owner string // the user who should own it, as chown takes it
}

// maxLeftovers bounds what doctor lists: the fix is recursive anyway.
const maxLeftovers = 10

// leftovers lists the topmost paths in ctxhook's data, cache and config
// directories that are not the user's. The user is the process's, or,
// run as root, the owner of HOME: that is whose directories they are.
func leftovers(getenv func(string) string, p paths.Paths) []leftover {
	want := os.Geteuid()
	if want < 0 {
		return nil // no uids (Windows)
	}
	if want == 0 {
		uid, ok := platform.FileOwner(getenv("HOME"))
		if !ok {
			return nil
		}
		want = uid
	}
	name := strconv.Itoa(want)
	if u, err := user.LookupId(name); err == nil {
		name = u.Username
	}
	var out []leftover
	var walk func(path string, depth int)
	walk = func(path string, depth int) {
		if len(out) >= maxLeftovers {
			return
		}
		uid, ok := platform.FileOwner(path)
		if !ok {
			return
		}
		if uid != want {
			out = append(out, leftover{path, uid, name})
			return
		}
		fi, err := os.Lstat(path)
		if err != nil || !fi.IsDir() || depth == 0 {
			return
		}
		entries, _ := os.ReadDir(path)
		for _, e := range entries {
			walk(filepath.Join(path, e.Name()), depth-1)
		}
	}
	seen := map[string]bool{}
	for _, root := range []string{p.Data, p.Cache, filepath.Dir(p.Config)} {
		if !seen[root] {
			seen[root] = true
			walk(root, 4)
		}
	}
	return out
}

// shellQuote quotes a path for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+@%:,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

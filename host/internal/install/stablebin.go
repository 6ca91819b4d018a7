package install

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/platform"
)

// A ctxhook started by `npx ctxhook` runs from npx's cache
// (~/.npm/_npx/<hash>/node_modules/@ctxhook/<platform>/bin), which npm
// may clear and the next `npx ctxhook@...` does not reuse. Hooks written
// to run it from there stop when it goes: they fail open, so the agent
// goes on and nothing says so. Install therefore copies the binaries that
// run from such a place into a directory of ctxhook's own (PlanStable)
// and names the copy in every file it writes.

// MayVanish says why the binary at exe may be deleted behind the user's
// back, or "" when it is where an installation stays: a path through npx's
// cache (a component named _npx), or one inside a temporary or cache
// directory (volatile, VolatileDirs in production). Both exe and the
// directories are compared as given and with symbolic links resolved
// (macOS's /tmp is /private/tmp).
func MayVanish(exe string, volatile []string) string {
	candidates := []string{filepath.Clean(exe)}
	if r, err := filepath.EvalSymlinks(exe); err == nil && r != candidates[0] {
		candidates = append(candidates, r)
	}
	for _, p := range candidates {
		for _, part := range strings.Split(filepath.ToSlash(p), "/") {
			if part == "_npx" {
				return "npx's cache, which npm may clear"
			}
		}
	}
	for _, d := range volatile {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		dirs := []string{filepath.Clean(d)}
		if r, err := filepath.EvalSymlinks(d); err == nil && r != dirs[0] {
			dirs = append(dirs, r)
		}
		for _, p := range candidates {
			for _, dir := range dirs {
				if within(p, dir) {
					return dir + ", a temporary or cache directory"
				}
			}
		}
	}
	return ""
}

// within reports whether p lies below dir.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// VolatileDirs are the directories whose contents the system or the user
// clears: the temporary directory ($TMPDIR, %TEMP%), /tmp, /var/tmp and
// /dev/shm, and the user's cache directory (pnpm dlx and bunx keep their
// packages there or in /tmp).
func VolatileDirs() []string {
	dirs := []string{os.TempDir()}
	if runtime.GOOS != "windows" {
		dirs = append(dirs, "/tmp", "/var/tmp", "/dev/shm")
	}
	if c, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, c)
	}
	return dirs
}

// Stable is where install copies ctxhook's binaries: one directory per
// build, <root>/<version>-<digest>, named by the bytes of both binaries so
// that two builds never share one and a copy is never replaced by another
// build's while hooks run it.
type Stable struct {
	Dir     string
	Exe     string // the copy of ctxhook, what hooks and MCP entries name
	sources []copySource
}

type copySource struct {
	from, name, sum string
}

// PlanStable says where the binary exe (and the hook client beside it,
// when there is one) go under root (paths.Paths.Bin), reading them to
// name the directory. Nothing is written.
func PlanStable(root, exe, version string) (Stable, error) {
	srcs := []copySource{{from: exe, name: "ctxhook" + exeSuffix}}
	if c := HookClient(exe); c != "" {
		srcs = append(srcs, copySource{from: c, name: "ctxhook-hook" + exeSuffix})
	}
	all := sha256.New()
	for i := range srcs {
		sum, err := fileSum(srcs[i].from)
		if err != nil {
			return Stable{}, fmt.Errorf("install: %w", err)
		}
		srcs[i].sum = sum
		all.Write([]byte(srcs[i].name + "\x00" + sum + "\x00"))
	}
	dir := filepath.Join(root, version+"-"+hex.EncodeToString(all.Sum(nil))[:12])
	return Stable{Dir: dir, Exe: filepath.Join(dir, "ctxhook"+exeSuffix), sources: srcs}, nil
}

// Copy puts the binaries into s.Dir, created owner-only (paths.EnsureDir:
// a directory another user owns or may write is refused). Each file is
// written under a temporary name, its bytes checked against the source's
// digest, and renamed into place; a copy already there with the right
// bytes is kept. It reports whether it wrote anything.
func (s Stable) Copy() (bool, error) {
	if err := paths.EnsureDir(s.Dir); err != nil {
		return false, fmt.Errorf("install: %w", err)
	}
	wrote := false
	for _, src := range s.sources {
		dst := filepath.Join(s.Dir, src.name)
		if sum, err := fileSum(dst); err == nil && sum == src.sum && platform.OwnedFile(dst) == nil {
			continue
		}
		if err := copyVerified(src, dst); err != nil {
			return wrote, err
		}
		wrote = true
	}
	if err := platform.OwnedTree(s.Dir, 0); err != nil {
		return wrote, fmt.Errorf("install: %w", err)
	}
	for _, src := range s.sources {
		if sum, err := fileSum(filepath.Join(s.Dir, src.name)); err != nil || sum != src.sum {
			return wrote, fmt.Errorf("install: the copy of %s in %s does not hold its bytes", src.from, s.Dir)
		}
	}
	return wrote, nil
}

// copyVerified copies src.from to dst through a temporary file in dst's
// directory, which is renamed into place only when its bytes have the
// digest the source had when it was planned.
func copyVerified(src copySource, dst string) error {
	in, err := os.Open(src.from)
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	defer os.Remove(tmp.Name()) // gone after the rename
	_, err = io.Copy(tmp, in)
	if err == nil {
		err = tmp.Sync()
	}
	if err == nil {
		err = tmp.Chmod(0o700)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("install: copying %s: %w", src.from, err)
	}
	if sum, err := fileSum(tmp.Name()); err != nil || sum != src.sum {
		return fmt.Errorf("install: %s changed while it was copied; nothing was installed", src.from)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	return nil
}

func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// RemoveUnusedBinaries removes the directories under root (paths.Paths.Bin)
// that no file in the journal names a binary of any more: once the last
// install that wrote a copy's path is uninstalled, the copy goes. It
// returns the directories removed.
func RemoveUnusedBinaries(root string, j Journal) ([]string, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("install: %w", err)
	}
	used := j.allExes()
	var removed []string
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() || slices.ContainsFunc(used, func(exe string) bool { return filepath.Dir(exe) == dir }) {
			continue
		}
		if err := removeFlat(dir); err != nil {
			return removed, fmt.Errorf("install: %w", err)
		}
		removed = append(removed, dir)
	}
	os.Remove(root) // only if empty
	return removed, nil
}

// removeFlat removes a copy's directory and the files in it (no more
// than Copy puts there). Something else in it, a directory say, is not
// ctxhook's: the directory then stays, and the error says so.
func removeFlat(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return os.Remove(dir)
}

// allExes lists every binary any record of the journal names, of every
// harness.
func (j Journal) allExes() []string {
	names, _ := filepath.Glob(filepath.Join(j.Dir, "*.json"))
	sort.Strings(names)
	var out []string
	for _, name := range names {
		var r record
		if b, err := os.ReadFile(name); err == nil && json.Unmarshal(b, &r) == nil {
			out = append(out, r.Exes...)
		}
	}
	return out
}

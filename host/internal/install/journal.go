package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
	"github.com/ctxhook/ctxhook/host/internal/platform"
)

// Journal remembers every file install changes: the file as it was before
// ctxhook first changed it, and a digest of what ctxhook last wrote there.
// Uninstall then puts a file back byte for byte (formatting, escaping and
// all), or removes it and the directories install created, when nobody
// else has changed it since ctxhook last wrote it: the user's files end
// exactly as found. A file someone else changed in between gets only
// ctxhook's entries removed.
//
// The journal lives in ctxhook's own private data directory: the files it
// copies may hold the user's credentials, and a backup beside a project's
// settings would end up in its repository.
type Journal struct {
	Dir     string // where the records are kept (paths.Paths.Installs)
	Harness string // whose install or uninstall this is
}

// record is what the journal keeps about one file.
type record struct {
	Path     string      `json:"path"`
	Existed  bool        `json:"existed"`
	Original []byte      `json:"original,omitempty"`
	Mode     fs.FileMode `json:"mode"`
	// Dirs are the directories ctxhook created for the file, deepest
	// first: removed with it when empty.
	Dirs []string `json:"dirs,omitempty"`
	// Wrote is the SHA-256 of what ctxhook last wrote.
	Wrote string `json:"wrote"`
	// Harnesses whose install changed the file and are still installed.
	Harnesses []string `json:"harnesses"`
	// Changed: someone else changed the file between two writes of
	// ctxhook's, so Original no longer holds what the user wants back.
	Changed bool `json:"changed,omitempty"`
	// Exes are the ctxhook binaries install named in the file: hooks
	// that run one of them exactly as install wrote them are ctxhook's,
	// after the binary moved too (PlanHooks).
	Exes []string `json:"exes,omitempty"`
}

// Exes returns the ctxhook binaries install has named in the file at
// path, as far as the journal knows.
func (j Journal) Exes(path string) []string {
	r, _ := j.load(path)
	return r.Exes
}

// ours reports whether a file ctxhook writes whole (the OpenCode loader,
// the Pi extension) holds exactly what ctxhook writes: what this binary
// would write now, or what ctxhook last wrote there (an older release's,
// or for a binary that has moved since). A copy the user edited is
// theirs, marker line or not.
func (j Journal) ours(path string, data, now []byte) bool {
	if now != nil && bytes.Equal(data, now) {
		return true
	}
	r, ok := j.load(path)
	return ok && r.Wrote != "" && r.Wrote == digest(data)
}

// fileMode is the mode a harness's file is written with: its own (cur),
// except that a file holding the hook secret (mcp_tool hooks) becomes
// the user's alone, whatever its directory lets others do, and gets its
// original mode back once the secret has left it.
func fileMode(cur, original os.FileMode, data []byte) os.FileMode {
	if bytes.Contains(data, []byte(`"`+hooksecret.Field+`"`)) {
		return cur &^ 0o077
	}
	if original != 0 && cur == original&^0o077 {
		return original
	}
	return cur
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (j Journal) file(path string) string {
	return filepath.Join(j.Dir, digest([]byte(path))[:24]+".json")
}

func (j Journal) load(path string) (record, bool) {
	var r record
	b, err := os.ReadFile(j.file(path))
	if err != nil || json.Unmarshal(b, &r) != nil || r.Path != path {
		return record{}, false
	}
	return r, true
}

func (j Journal) save(r record) error {
	if err := platform.MayCreate(j.Dir); err != nil {
		return err
	}
	if err := os.MkdirAll(j.Dir, 0o700); err != nil {
		return fmt.Errorf("install: journal: %w", err)
	}
	b, _ := json.Marshal(r)
	return writeAtomic(j.file(r.Path), b, 0o600)
}

// Write applies a plan of this harness's install (install=true) or
// uninstall, journaling the file. There is no backup beside the file: the
// journal holds the original.
func (j Journal) Write(p Plan, install bool) error {
	if !p.Changed {
		return nil
	}
	r, known := j.load(p.Path)
	if !known {
		r = record{Path: p.Path, Existed: p.Before != nil, Original: p.Before, Mode: 0o644}
		if p.Mode != 0 {
			r.Mode = p.Mode
		}
		if fi, err := os.Stat(p.Path); err == nil {
			r.Mode = fi.Mode().Perm()
		}
	} else if digest(p.Before) != r.Wrote && !(p.Before == nil && !r.Existed && r.Wrote == "") {
		r.Changed = true
	}
	if !install && p.After != nil && !r.Existed && !r.Changed && isEmptyConfig(p.After) {
		// ctxhook made the file, and without its entries nothing is left.
		p.After = nil
	}
	if p.After == nil {
		if err := os.Remove(p.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("install: %w", err)
		}
		removeDirs(r.Dirs)
		r.Dirs = nil
	} else {
		created := missingDirs(filepath.Dir(p.Path))
		if err := os.MkdirAll(filepath.Dir(p.Path), 0o755); err != nil {
			return fmt.Errorf("install: %w", err)
		}
		if !known || len(r.Dirs) == 0 {
			r.Dirs = append(r.Dirs, created...)
		}
		mode := r.Mode
		if fi, err := os.Stat(p.Path); err == nil {
			mode = fi.Mode().Perm()
		}
		if err := writeUserFile(p.Path, p.After, fileMode(mode, r.Mode, p.After)); err != nil {
			return err
		}
	}
	if install && p.Exe != "" && !slices.Contains(r.Exes, p.Exe) {
		r.Exes = append(r.Exes, p.Exe)
	}
	r.Wrote = digest(p.After)
	if p.After == nil {
		r.Wrote = ""
	}
	i := slices.Index(r.Harnesses, j.Harness)
	switch {
	case install && i < 0:
		r.Harnesses = append(r.Harnesses, j.Harness)
	case !install && i >= 0:
		r.Harnesses = slices.Delete(r.Harnesses, i, i+1)
	}
	if len(r.Harnesses) == 0 {
		return j.forget(p.Path)
	}
	return j.save(r)
}

func (j Journal) forget(path string) error {
	if err := os.Remove(j.file(path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("install: journal: %w", err)
	}
	return nil
}

// Restored is a file Restore put back (or would, in a dry run).
type Restored struct {
	Path    string
	Removed bool // ctxhook had created it: removed, not rewritten
}

// Restore puts back every file only this harness's install changed and
// nobody else has changed since: its original bytes, or no file where
// there was none (with the directories install created, when empty).
// With dry, it only says what it would do. The files it cannot put back
// are left for the structural uninstall, which removes ctxhook's entries.
func (j Journal) Restore(dry bool) ([]Restored, error) {
	names, _ := filepath.Glob(filepath.Join(j.Dir, "*.json"))
	sort.Strings(names)
	var out []Restored
	// Directories install created go once every file is back: two files
	// may share one (Codex's hooks.json and config.toml in .codex).
	var dirs []string
	defer func() {
		sort.Slice(dirs, func(a, b int) bool { return len(dirs[a]) > len(dirs[b]) })
		for _, d := range dirs {
			os.Remove(d) // only if empty
		}
	}()
	for _, name := range names {
		var r record
		b, err := os.ReadFile(name)
		if err != nil || json.Unmarshal(b, &r) != nil || j.file(r.Path) != name {
			continue
		}
		if r.Changed || len(r.Harnesses) != 1 || r.Harnesses[0] != j.Harness {
			continue
		}
		cur, err := os.ReadFile(r.Path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return out, fmt.Errorf("install: %w", err)
		}
		if (err == nil && digest(cur) != r.Wrote) || (err != nil && r.Wrote != "") {
			continue // changed since ctxhook wrote it
		}
		out = append(out, Restored{Path: r.Path, Removed: !r.Existed})
		if dry {
			continue
		}
		if r.Existed {
			mode := r.Mode
			if fi, err := os.Stat(r.Path); err == nil {
				mode = fi.Mode().Perm()
			}
			if err := writeUserFile(r.Path, r.Original, fileMode(mode, r.Mode, r.Original)); err != nil {
				return out, err
			}
		} else {
			if err := os.Remove(r.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return out, fmt.Errorf("install: %w", err)
			}
			dirs = append(dirs, r.Dirs...)
		}
		if err := j.forget(r.Path); err != nil {
			return out, err
		}
	}
	return out, nil
}

// missingDirs lists dir and its ancestors that do not exist, deepest
// first.
func missingDirs(dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			return out
		}
		out = append(out, d)
	}
}

// removeDirs removes the directories install created, deepest first,
// each only if empty.
func removeDirs(dirs []string) {
	for _, d := range dirs {
		if os.Remove(d) != nil {
			return
		}
	}
}

// isEmptyConfig: a JSON object with no keys, or nothing but blanks.
func isEmptyConfig(b []byte) bool {
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return true
	}
	o, err := parseObject(t)
	return err == nil && o.len() == 0
}

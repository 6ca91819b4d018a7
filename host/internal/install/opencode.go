package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxhook/ctxhook/adapters"
	"github.com/ctxhook/ctxhook/host/internal/platform"
)

// OpenCode has no hook commands: ctxhook runs inside it as a plugin file
// in <config dir>/plugins/, which loads plugin.wasm with @extism/extism.
// Kilo CLI, its descendant, loads the same file from its own directories
// (harnesses.json: config_dir, project_dir); everything below serves both.
// Install writes three things, and uninstall takes back exactly those:
//   - plugins/ctxhook.js, the bundled loader (it starts with a marker line,
//     and only a file with that marker is ever replaced or removed);
//   - ctxhook/plugin.wasm, the plugin this binary embeds;
//   - "@extism/extism" in the directory's package.json dependencies, which
//     OpenCode installs with bun on start (recorded in ctxhook/installed.json
//     so uninstall removes it only if install added it).

// ExtismVersion is the @extism/extism release the loader is tested with.
const ExtismVersion = "1.0.3"

// LoaderFiles names what install writes under Dir for Harness.
type LoaderFiles struct {
	Harness                                string
	Dir, Plugin, Wasm, Record, PackageJSON string
}

// LoaderPaths returns the files for a plugin harness's config directory.
func LoaderPaths(h Harness, dir string) LoaderFiles {
	return LoaderFiles{Harness: h.Name, Dir: dir, Plugin: filepath.Join(dir, "plugins", "ctxhook.js"),
		Wasm: filepath.Join(dir, "ctxhook", "plugin.wasm"), Record: filepath.Join(dir, "ctxhook", "installed.json"),
		PackageJSON: filepath.Join(dir, "package.json")}
}

type openCodeRecord struct {
	AddedDependency bool `json:"added_dependency"`
}

// InstallLoader writes (install=true) or removes the plugin, through the
// journal. It returns one line per change, for the user.
func InstallLoader(f LoaderFiles, exe string, wasm []byte, install bool, j Journal) ([]string, error) {
	var done []string
	bundle, rec, err := openCodeStart(f, exe, j)
	if err != nil {
		return nil, err
	}
	if !install {
		for _, w := range []struct {
			path string
			now  []byte
		}{{f.Plugin, bundle}, {f.Wasm, wasm}, {f.Record, nil}} {
			p := w.path
			old, err := os.ReadFile(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			} else if err != nil {
				return done, fmt.Errorf("install: %w", err)
			}
			if !j.ours(p, old, w.now) {
				done = append(done, "kept "+p+" (not as ctxhook wrote it)")
				continue
			}
			if err := j.Write(Plan{Path: p, Before: old, Changed: true}, false); err != nil {
				return done, err
			}
			done = append(done, "removed "+p)
		}
		os.Remove(filepath.Dir(f.Wasm)) // only if empty
		if rec.AddedDependency {
			p, err := planDependency(f.PackageJSON, false)
			if err != nil {
				return done, err
			}
			if p.Changed {
				if err := j.Write(p, false); err != nil {
					return done, err
				}
				done = append(done, "removed @extism/extism from "+f.PackageJSON)
			}
		}
		return done, nil
	}
	plans, err := planOpenCode(f, exe, bundle, wasm, rec)
	if err != nil {
		return done, err
	}
	for _, p := range plans {
		if !p.Changed {
			continue
		}
		if err := j.Write(p, true); err != nil {
			return done, err
		}
		switch p.Path {
		case f.PackageJSON:
			done = append(done, "added @extism/extism "+ExtismVersion+" to "+f.PackageJSON)
		case f.Record: // install's own note, not news to the user
		default:
			done = append(done, "wrote "+p.Path)
		}
	}
	return done, nil
}

// PlanLoader returns every file install writes for the plugin, in the
// order it writes them (plugin.wasm, the loader, package.json, the
// record of what it added), each with Changed saying whether install
// would change it: what a dry run shows.
func PlanLoader(f LoaderFiles, exe string, wasm []byte, j Journal) ([]Plan, error) {
	bundle, rec, err := openCodeStart(f, exe, j)
	if err != nil {
		return nil, err
	}
	return planOpenCode(f, exe, bundle, wasm, rec)
}

// openCodeStart is what install and its plan both begin with: the loader
// this binary writes, refused when a loader at its path is not ctxhook's
// (or was changed since), and the record of what was installed before.
func openCodeStart(f LoaderFiles, exe string, j Journal) ([]byte, openCodeRecord, error) {
	var rec openCodeRecord
	bundle, err := adapters.OpenCodeBundle(f.Wasm, exe, f.Harness)
	if err != nil {
		return nil, rec, err
	}
	if old, err := os.ReadFile(f.Plugin); err == nil && !j.ours(f.Plugin, old, bundle) {
		return nil, rec, fmt.Errorf("install: %s exists and was not written by ctxhook, or was changed since; move it, nothing was changed", f.Plugin)
	}
	if b, err := os.ReadFile(f.Record); err == nil {
		json.Unmarshal(b, &rec)
	}
	return bundle, rec, nil
}

// planOpenCode plans install's files; rec is the record install keeps
// (whether it added the dependency), as it stands.
func planOpenCode(f LoaderFiles, exe string, bundle, wasm []byte, rec openCodeRecord) ([]Plan, error) {
	var plans []Plan
	for _, w := range []struct {
		path, exe string
		data      []byte
	}{{f.Wasm, "", wasm}, {f.Plugin, exe, bundle}} {
		old, _ := os.ReadFile(w.path)
		plans = append(plans, Plan{Path: w.path, Before: old, After: w.data, Changed: !bytes.Equal(old, w.data), Exe: w.exe})
	}
	dep, err := planDependency(f.PackageJSON, true)
	if err != nil {
		return nil, err
	}
	plans = append(plans, dep)
	rec.AddedDependency = rec.AddedDependency || dep.Changed
	b, _ := json.Marshal(rec)
	old, _ := os.ReadFile(f.Record)
	return append(plans, Plan{Path: f.Record, Before: old, After: b, Changed: !bytes.Equal(old, b)}), nil
}

// planDependency adds or removes @extism/extism in package.json's
// dependencies, keeping everything else as it is. A version the user
// pinned is left alone.
func planDependency(path string, add bool) (Plan, error) {
	p := Plan{Path: path}
	before, root, err := loadJSON(path)
	if err != nil {
		return p, err
	}
	p.Before = before
	deps := newObject()
	if raw, ok := root.get("dependencies"); ok {
		if deps, err = parseObject(raw); err != nil {
			return p, fmt.Errorf("install: %s: dependencies is not an object; nothing was changed", path)
		}
	}
	const name = "@extism/extism"
	_, has := deps.get(name)
	switch {
	case add && !has:
		deps.set(name, mustRaw(ExtismVersion))
	case !add && has:
		deps.del(name)
	default:
		p.After = p.Before
		return p, nil
	}
	if deps.len() == 0 {
		root.del("dependencies")
	} else {
		root.set("dependencies", deps.raw())
	}
	if p.After, err = root.pretty(p.Before); err != nil {
		return p, err
	}
	p.Changed = !bytes.Equal(p.Before, p.After)
	return p, nil
}

// LoaderStatus says what doctor needs to know.
type LoaderStatus struct {
	Plugin, WasmCurrent, Dependency, DependencyInstalled bool
}

// CheckLoader inspects an installed plugin against the running binary's
// plugin.wasm.
func CheckLoader(f LoaderFiles, wasm []byte) LoaderStatus {
	var s LoaderStatus
	if b, err := os.ReadFile(f.Plugin); err == nil && bytes.HasPrefix(b, []byte(adapters.OpenCodeMarker)) {
		s.Plugin = true
	}
	if b, err := os.ReadFile(f.Wasm); err == nil && sha256.Sum256(b) == sha256.Sum256(wasm) {
		s.WasmCurrent = true
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if b, err := os.ReadFile(f.PackageJSON); err == nil && json.Unmarshal(b, &pkg) == nil {
		_, s.Dependency = pkg.Dependencies["@extism/extism"]
	}
	if _, err := os.Stat(filepath.Join(f.Dir, "node_modules", "@extism", "extism", "package.json")); err == nil {
		s.DependencyInstalled = true
	}
	return s
}

// writeAtomic replaces path with data (a new file, renamed over it) with
// mode, whatever the umask.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".ctxhook-tmp-*")
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("install: %w", err)
	}
	return nil
}

// writeUserFile writes one of the user's files: atomically, and through
// a symbolic link in its place (a dotfiles manager's) to the file it
// leads to, replaced in that file's own directory, so the link stays.
// A link platform.LinkTarget refuses is neither followed nor replaced.
func writeUserFile(path string, data []byte, mode os.FileMode) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, err := platform.LinkTarget(path)
		if err != nil {
			return fmt.Errorf("install: %s is a symbolic link ctxhook will not write through (%v); it was not changed", path, err)
		}
		path = target
	}
	return writeAtomic(path, data, mode)
}

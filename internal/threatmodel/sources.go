package threatmodel

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Module is this repository's Go module.
const Module = "github.com/ctxhook/ctxhook"

// Release is what users run, as sources: the non-test Go files of the
// module's packages that ctxhook and ctxhook-hook link on each release OS
// (as `go list -deps` selects them, build tags included: a file only a
// ctxhook_testhooks build compiles is not here) and plugin.wasm's, by
// package directory relative to the root; the JavaScript users install
// (each adapter's index.js, the npm launcher) by module name; and the
// harness registry.
type Release struct {
	Go        map[string][]Source // package dir (slash-separated, relative) → files
	JS        map[string][]Source // module name → files
	JSOther   []Source            // other files the adapters ship: variables only
	Harnesses []byte
}

// LoadRelease reads the release sources of the checkout at root.
func LoadRelease(root string) (*Release, error) {
	r := &Release{Go: map[string][]Source{}, JS: map[string][]Source{}}
	seen := map[string]bool{}
	for _, target := range [][3]string{
		{"linux", "amd64", "./host/cmd/ctxhook ./host/cmd/ctxhook-hook"},
		{"darwin", "arm64", "./host/cmd/ctxhook ./host/cmd/ctxhook-hook"},
		{"windows", "amd64", "./host/cmd/ctxhook ./host/cmd/ctxhook-hook"},
		{"wasip1", "wasm", "./plugin/guest"},
	} {
		cmd := exec.Command("go", append([]string{"list", "-deps", "-f",
			`{{if .Module}}{{if eq .Module.Path "` + Module + `"}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{end}}{{end}}`}, strings.Fields(target[2])...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS="+target[0], "GOARCH="+target[1], "GOFLAGS=", "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("threatmodel: go list for %s: %v", target[0], err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			fields := strings.Fields(line)
			if len(fields) == 0 {
				continue
			}
			rel, err := filepath.Rel(root, fields[0])
			if err != nil {
				return nil, err
			}
			for _, name := range fields[1:] {
				path := filepath.Join(fields[0], name)
				if seen[path] {
					continue
				}
				seen[path] = true
				b, err := os.ReadFile(path)
				if err != nil {
					return nil, err
				}
				dir := filepath.ToSlash(rel)
				r.Go[dir] = append(r.Go[dir], Source{dir + "/" + name, b})
			}
		}
	}
	if err := r.loadJS(root); err != nil {
		return nil, err
	}
	var err error
	r.Harnesses, err = os.ReadFile(filepath.Join(root, "harness-configs", "harnesses.json"))
	return r, err
}

// loadJS reads each adapter's index.js (named by its package.json, else
// adapters/<dir>) and the npm launcher's files.
func (r *Release) loadJS(root string) error {
	dirs, err := filepath.Glob(filepath.Join(root, "adapters", "*", "index.js"))
	if err != nil {
		return err
	}
	for _, f := range dirs {
		dir := filepath.Dir(f)
		module := "adapters/" + filepath.Base(dir)
		var pj struct{ Name string }
		if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil && json.Unmarshal(b, &pj) == nil && pj.Name != "" {
			module = pj.Name
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		r.JS[module] = append(r.JS[module], Source{filepath.ToSlash(mustRel(root, f)), b})
	}
	// The other files an adapter ships beside index.js: their variables
	// count, their exports do not (only index.js is the module's API).
	for _, pattern := range []string{"adapters/*/*.js", "adapters/*/*.cjs", "adapters/*/*.mjs"} {
		more, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			return err
		}
		for _, f := range more {
			if filepath.Base(f) == "index.js" || strings.HasPrefix(filepath.Base(f), "bench") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			r.JSOther = append(r.JSOther, Source{filepath.ToSlash(mustRel(root, f)), b})
		}
	}
	// The npm launcher: every JavaScript file the package ships.
	npm, err := filepath.Glob(filepath.Join(root, "npm", "ctxhook", "*.js"))
	if err != nil {
		return err
	}
	bins, err := filepath.Glob(filepath.Join(root, "npm", "ctxhook", "bin", "*.js"))
	if err != nil {
		return err
	}
	for _, f := range append(npm, bins...) {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		r.JS["ctxhook"] = append(r.JS["ctxhook"], Source{filepath.ToSlash(mustRel(root, f)), b})
	}
	return nil
}

func mustRel(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return rel
}

// Entries derives every entry point of the release sources.
func (r *Release) Entries() ([]Entry, error) {
	var goFiles []Source
	for _, fs := range r.Go {
		goFiles = append(goFiles, fs...)
	}
	env, err := GoEnvVars(goFiles)
	if err != nil {
		return nil, err
	}
	scans, err := environScans(goFiles)
	if err != nil {
		return nil, err
	}
	env = append(env, scans...)
	var js []Source
	modules := make([]string, 0, len(r.JS))
	for m := range r.JS {
		modules = append(modules, m)
	}
	sort.Strings(modules)
	var exports []Entry
	for _, m := range modules {
		js = append(js, r.JS[m]...)
		if m != "ctxhook" { // the launcher is a command, not an API
			for _, f := range r.JS[m] {
				exports = append(exports, JSExports(m, f)...)
			}
		}
	}
	out := dedup(append(env, JSEnvVars(append(js, r.JSOther...))...))
	for _, d := range []struct {
		dir  string
		kind func([]Source) ([]Entry, error)
	}{{"host/internal/config", ConfigKeys}, {"host/internal/cli", CLIEntries}} {
		if len(r.Go[d.dir]) == 0 {
			return nil, fmt.Errorf("threatmodel: %s is not in the release binaries", d.dir)
		}
		es, err := d.kind(r.Go[d.dir])
		if err != nil {
			return nil, err
		}
		out = append(out, es...)
	}
	// SQL anywhere in the release code, not only in the store's package.
	if len(r.Go["host/store/pgstore"]) == 0 {
		return nil, fmt.Errorf("threatmodel: host/store/pgstore is not in the release binaries")
	}
	sql, err := SQLEntries(goFiles)
	if err != nil {
		return nil, err
	}
	out = append(out, sql...)
	hooks, err := HookScripts(r.Harnesses)
	if err != nil {
		return nil, err
	}
	return append(append(out, exports...), hooks...), nil
}

package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxhook/ctxhook/adapters"
)

// Pi is the Pi coding agent: ctxhook's extension in its extensions
// directory runs the hook client for each tool event.

// PiDir is Pi's agent directory ($PI_CODING_AGENT_DIR, else ~/.pi/agent)
// for the user scope, the project's .pi for the project scope.
func PiDir(h Harness, scope string, getenv func(string) string, dir string) (string, error) {
	switch scope {
	case "user":
		if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
			// Pi expands a leading ~ itself.
			if rest, ok := strings.CutPrefix(d, "~"); ok && (rest == "" || rest[0] == '/' || rest[0] == filepath.Separator) {
				home := Home(getenv)
				if home == "" {
					return "", errors.New("install: HOME is not set")
				}
				return filepath.Join(home, rest), nil
			}
			return d, nil
		}
		if home := Home(getenv); home != "" {
			return filepath.Join(home, h.ConfigDir), nil
		}
		return "", errors.New("install: HOME is not set")
	case "project":
		return filepath.Join(dir, h.ProjectDir), nil
	}
	return "", fmt.Errorf("install: unknown scope %q (want user or project)", scope)
}

// PiExtensionPath is the file install writes in a Pi directory.
func PiExtensionPath(piDir string) string { return filepath.Join(piDir, "extensions", "ctxhook.js") }

// InstallPi writes (install) or removes ctxhook's Pi extension at path,
// through the journal; a file there that ctxhook did not write is never
// touched. It returns what it did.
func InstallPi(path, exe string, install bool, j Journal) ([]string, error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("install: %w", err)
	}
	ext, err := PiExtension(exe)
	if err != nil {
		return nil, err
	}
	if old != nil && !j.ours(path, old, ext) {
		return nil, fmt.Errorf("install: %s exists and was not written by ctxhook, or was changed since; move it, nothing was changed", path)
	}
	if !install {
		if old == nil {
			return nil, nil
		}
		if err := j.Write(Plan{Path: path, Before: old, Changed: true}, false); err != nil {
			return nil, err
		}
		os.Remove(filepath.Dir(path)) // only if empty
		return []string{"removed " + path}, nil
	}
	if bytes.Equal(old, ext) {
		return nil, nil
	}
	if err := j.Write(Plan{Path: path, Before: old, After: ext, Changed: true, Exe: exe}, true); err != nil {
		return nil, err
	}
	return []string{"wrote " + path}, nil
}

// PiExtension is the extension install writes for the ctxhook binary exe.
// A project's, shared with others, names the binaries by name: the hook
// client when this user has one next to ctxhook (as a project's hooks
// file does).
func PiExtension(exe string) ([]byte, error) {
	if exe == PortableExe {
		client := ""
		if self, err := os.Executable(); err == nil && HookClient(self) != "" {
			client = PortableExe + "-hook"
		}
		return adapters.PiExtension(client, exe)
	}
	return adapters.PiExtension(HookClient(exe), exe)
}

// CheckPi reports whether ctxhook's extension is at path, and whether it
// is the one install would write for exe now.
func CheckPi(path, exe string) (present, current bool) {
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte(adapters.PiMarker)) {
		return false, false
	}
	want, err := PiExtension(exe)
	return true, err == nil && bytes.Equal(b, want)
}

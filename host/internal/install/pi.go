package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxhook/ctxhook/adapters"
)

// Pi is the Pi coding agent: ctxhook's extension in its extensions
// directory runs the hook client for each tool event.

// ExtensionPath is the file install writes in a Pi directory.
func ExtensionPath(piDir string) string { return filepath.Join(piDir, "extensions", "ctxhook.js") }

// InstallExtension writes (install) or removes ctxhook's Pi extension at path,
// through the journal; a file there that ctxhook did not write is never
// touched. It returns what it did.
func InstallExtension(path, exe string, install bool, j Journal) ([]string, error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("install: %w", err)
	}
	ext, err := ExtensionFile(exe)
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

// ExtensionFile is the extension install writes for the ctxhook binary exe.
// A project's, shared with others, names the binaries by name: the hook
// client when this user has one next to ctxhook (as a project's hooks
// file does).
func ExtensionFile(exe string) ([]byte, error) {
	if exe == PortableExe {
		client := ""
		if self, err := os.Executable(); err == nil && HookClient(self) != "" {
			client = PortableExe + "-hook"
		}
		return adapters.PiExtension(client, exe)
	}
	return adapters.PiExtension(HookClient(exe), exe)
}

// CheckExtension reports whether ctxhook's extension is at path, and whether it
// is the one install would write for exe now.
func CheckExtension(path, exe string) (present, current bool) {
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte(adapters.PiMarker)) {
		return false, false
	}
	want, err := ExtensionFile(exe)
	return true, err == nil && bytes.Equal(b, want)
}

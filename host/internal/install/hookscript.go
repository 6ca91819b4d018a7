package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Hook scripts: a harness of kind hook-script (Cline CLI) runs every
// executable file in its hooks directory named after an event, with the
// payload on stdin. ctxhook's file per event runs its hook command.

// HookScriptMarker is the second line of every hook script ctxhook writes:
// doctor and uninstall know its files by it (and by the journal).
const HookScriptMarker = "# ctxhook hook script: written by 'ctxhook install', removed by 'ctxhook uninstall'."

// HookScriptPaths are the files install writes in a harness directory:
// hooks/<Event>, one per event of the entry.
func HookScriptPaths(h Harness, dir string) []string {
	var out []string
	for _, ev := range h.Harness.Events {
		out = append(out, filepath.Join(dir, "hooks", ev))
	}
	return out
}

// HookScript is the file install writes for event: it runs the hook client
// next to exe when there is one (it starts faster), else exe. A project's,
// shared with others, names the binary by name (found on PATH).
func HookScript(h Harness, exe, event string) []byte {
	// The hook client takes <harness> <event>; ctxhook, hook <harness> <event>.
	cmd := ShellQuote(exe) + " hook"
	if c := HookClient(exe); c != "" && exe != PortableExe {
		cmd = ShellQuote(c)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "#!/bin/sh\n%s\nexec %s %s %s\n", HookScriptMarker, cmd, h.Name, event)
	return b.Bytes()
}

// CheckHookScript reports whether ctxhook's hook script is at path, and
// whether it is the one install would write for exe now.
func CheckHookScript(h Harness, path, exe string) (present, current bool) {
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(b, []byte(HookScriptMarker)) {
		return false, false
	}
	fi, err := os.Stat(path)
	return true, err == nil && fi.Mode()&0o100 != 0 && bytes.Equal(b, HookScript(h, exe, filepath.Base(path)))
}

// InstallHookScripts writes (install) or removes ctxhook's hook script for
// each event of h in dir, through the journal; a file there that ctxhook
// did not write is never touched (none is, then). It returns what it did.
func InstallHookScripts(h Harness, dir, exe string, install bool, j Journal) ([]string, error) {
	paths := HookScriptPaths(h, dir)
	olds := make([][]byte, len(paths))
	for i, path := range paths {
		old, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("install: %w", err)
		}
		if old != nil && !j.ours(path, old, HookScript(h, exe, h.Harness.Events[i])) {
			return nil, fmt.Errorf("install: %s exists and was not written by ctxhook, or was changed since; move it, nothing was changed", path)
		}
		olds[i] = old
	}
	var done []string
	for i, path := range paths {
		d, err := writeHookScript(path, olds[i], HookScript(h, exe, h.Harness.Events[i]), exe, install, j)
		if err != nil {
			return done, err
		}
		done = append(done, d...)
	}
	if !install {
		os.Remove(filepath.Join(dir, "hooks")) // only if empty
	}
	return done, nil
}

// writeHookScript writes one script (mode 0700: only its user runs it)
// or removes it.
func writeHookScript(path string, old, want []byte, exe string, install bool, j Journal) ([]string, error) {
	switch {
	case !install && old == nil, install && bytes.Equal(old, want):
		return nil, nil
	case !install:
		if err := j.Write(Plan{Path: path, Before: old, Changed: true}, false); err != nil {
			return nil, err
		}
		return []string{"removed " + path}, nil
	}
	if err := j.Write(Plan{Path: path, Before: old, After: want, Changed: true, Exe: exe, Mode: 0o700}, true); err != nil {
		return nil, err
	}
	return []string{"wrote " + path}, nil
}

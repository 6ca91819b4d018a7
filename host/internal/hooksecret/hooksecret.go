// Package hooksecret is the per-install secret that proves a call of
// `ctxhook mcp`'s hook tool comes from the mcp_tool hooks `ctxhook
// install` wrote, and not from another MCP client, or from a model that
// reaches unlisted tools through a script or a gateway. Install creates
// it (one 0600 file in ctxhook's data directory) and writes it as a
// literal into the hooks' input; the hook tool compares it in constant
// time and never returns it.
package hooksecret

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ctxhook/ctxhook/host/internal/platform"
)

// Field is the key of the hooks' input that carries the secret.
const Field = "ctxhook_secret"

// Placeholder stands for the secret in the hooks template
// (harness-configs/claude-code/settings-mcp_tool.json).
const Placeholder = "{{HOOK_SECRET}}"

// size is the secret's length in bytes (hex-encoded in the file).
const size = 32

// Path is the secret's file in ctxhook's data directory.
func Path(data string) string { return filepath.Join(data, "hook-secret") }

// Read returns the secret at path. A file that is missing, not this
// user's alone (platform.OwnedFile), or not a secret install wrote is an error:
// the hook tool then answers nobody.
func Read(path string) (string, error) {
	if err := platform.OwnedFile(path); err != nil {
		return "", err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s may be read by others (mode %v); re-run ctxhook install to make a new one", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(string(b))
	if !Valid(s) {
		return "", fmt.Errorf("%s is not a secret ctxhook install wrote", path)
	}
	return s, nil
}

// Valid reports whether s has the form of a secret install writes.
func Valid(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == size
}

// Ensure returns the secret at path, making it first when there is none
// (or the file holds no valid secret). Two installs at once agree on one
// secret: the file is put in place with a hard link, which fails if one
// is there, and the loser reads the winner's.
func Ensure(path string) (string, error) {
	if s, err := Read(path); err == nil {
		return s, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		// Not a valid secret (or not ours alone): replace it, privately.
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("hook secret: %w", err)
		}
	}
	b := make([]byte, size)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("hook secret: %w", err)
	}
	s := hex.EncodeToString(b)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".hook-secret-*")
	if err != nil {
		return "", fmt.Errorf("hook secret: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(s + "\n")
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		platform.TightenFile(tmp.Name())
		err = os.Link(tmp.Name(), path)
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("hook secret: %w", err)
	}
	return Read(path)
}

// Matches compares a presented secret with the installed one in
// constant time. An empty installed secret matches nothing.
func Matches(installed, presented string) bool {
	if installed == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(installed), []byte(presented)) == 1
}

// Package state keeps the plugin's small per-session documents (relay
// tokens, nudge counters) between hook processes.
//
// Each key is one file whose name is a hash of the key, never the raw
// value: keys hold session ids that come from the harness and must not
// pick paths. Writes are atomic (temp file, fsync, rename) and readers and
// writers of one key serialise on a flock, so two parallel hooks of one
// session cannot lose a counter update.
package state

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/platform"
)

// ErrLocked is returned when a key stays locked past the timeout.
var ErrLocked = errors.New("state: locked by another ctxhook process")

// Dir is a directory of state documents.
type Dir struct{ path string }

// Open returns the state directory, creating it 0700.
func Open(path string) (Dir, error) {
	if err := paths.EnsureDir(path); err != nil {
		return Dir{}, fmt.Errorf("state: %w", err)
	}
	return Dir{path: path}, nil
}

func (d Dir) file(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(d.path, hex.EncodeToString(sum[:16])+".json")
}

// File is the path of key's document (for a cache of what it holds).
func (d Dir) File(key string) string { return d.file(key) }

// Lock takes the locks of keys, in the given order, waiting up to timeout.
// The returned func releases them.
func (d Dir) Lock(keys []string, timeout time.Duration) (unlock func(), err error) {
	deadline := time.Now().Add(timeout)
	var held []*os.File
	unlock = func() {
		for _, f := range held {
			platform.Unlock(f)
			f.Close()
		}
	}
	for _, k := range keys {
		f, err := os.OpenFile(d.file(k)+".lock", os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			unlock()
			return nil, fmt.Errorf("state: %w", err)
		}
		for {
			err = platform.TryLock(f)
			if err == nil {
				break
			}
			if !errors.Is(err, platform.ErrBusy) || time.Now().After(deadline) {
				f.Close()
				unlock()
				if errors.Is(err, platform.ErrBusy) {
					return nil, ErrLocked
				}
				return nil, fmt.Errorf("state: lock: %w", err)
			}
			time.Sleep(2 * time.Millisecond)
		}
		held = append(held, f)
	}
	return unlock, nil
}

// Read returns the stored values of keys; a key never written is absent.
func (d Dir) Read(keys []string) (map[string]string, error) {
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		b, err := os.ReadFile(d.file(k))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("state: %w", err)
		}
		out[k] = string(b)
	}
	return out, nil
}

// Write replaces the value of key atomically: a reader sees the old value
// or the new one, never part of either, and the death of the process at
// any point leaves one of them. It does not fsync: state outlives the
// process (the kernel holds it) but the last writes may not outlive a
// power cut, the same promise the store makes (WAL, synchronous=NORMAL).
// An fsync here cost more than the rest of a warm hook (RATIONALE.md).
func (d Dir) Write(key, value string) error {
	target := d.file(key)
	// CreateTemp makes the file 0600.
	tmp, err := os.CreateTemp(d.path, ".tmp-*")
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(value); err != nil {
		tmp.Close()
		return fmt.Errorf("state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	return nil
}

// Remove deletes the documents of keys, under their locks (the lock
// files stay: they hold nothing). A key without a document is no error.
func (d Dir) Remove(keys []string) (int, error) {
	unlock, err := d.Lock(keys, 2*time.Second)
	if err != nil {
		return 0, err
	}
	defer unlock()
	n := 0
	for _, k := range keys {
		if err := os.Remove(d.file(k)); err == nil {
			n++
		} else if !errors.Is(err, fs.ErrNotExist) {
			return n, fmt.Errorf("state: %w", err)
		}
	}
	return n, nil
}

// RemoveOlder deletes every document not written since before (all of
// them for a zero time), and reports how many it deleted. Lock files
// stay, as with Remove.
func (d Dir) RemoveOlder(before time.Time) (int, error) {
	docs, err := filepath.Glob(filepath.Join(d.path, "*.json"))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, doc := range docs {
		if fi, err := os.Stat(doc); err != nil || (!before.IsZero() && !fi.ModTime().Before(before)) {
			continue
		}
		if err := os.Remove(doc); err == nil {
			n++
		}
	}
	return n, nil
}

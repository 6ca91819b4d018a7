package pgcluster

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestStartStop starts a real cluster, stops it and starts it again on
// the same port, as the offline tests do.
func TestStartStop(t *testing.T) {
	dir, err := os.MkdirTemp("", "pgcluster-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	c, err := Start(filepath.Join(dir))
	if errors.Is(err, ErrNoPostgres) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	if err := c.Pause(); err != nil {
		t.Fatal(err)
	}
	if err := c.Resume(); err != nil {
		t.Fatal(err)
	}
}

// TestNoFixedPasswordModesRestored: the superuser's password is random
// (any local user reaches 127.0.0.1), and, run as root, the directories
// made traversable for nobody get their modes back when it stops.
func TestNoFixedPasswordModesRestored(t *testing.T) {
	parent, err := os.MkdirTemp("", "pgcluster-parent-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(parent)
	if err := os.Chmod(parent, 0o700); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "cluster")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	c, err := Start(dir)
	if errors.Is(err, ErrNoPostgres) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if c.Password == "pgcluster-super" || len(c.Password) < 32 || RandomPassword() == RandomPassword() {
		t.Errorf("the superuser's password is not random: %q", c.Password)
	}
	c.Stop()
	fi, err := os.Stat(parent)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("the cluster's parent is left %v, was 0700", fi.Mode().Perm())
	}
}

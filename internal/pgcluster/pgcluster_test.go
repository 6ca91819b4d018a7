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

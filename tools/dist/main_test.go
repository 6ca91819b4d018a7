package main

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestReleaseBuildRefusesTags: dist refuses a binary built with the test
// knobs' tag (or any tag) and takes one built as it builds them.
func TestReleaseBuildRefusesTags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the hook client twice (-short)")
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		tags string
		ok   bool
	}{{"-tags=", true}, {"-tags=ctxhook_testhooks", false}, {"-tags=netgo", false}} {
		bin := filepath.Join(dir, "hook"+tt.tags[6:])
		c := exec.Command("go", "build", tt.tags, "-trimpath", "-o", bin, "../../host/cmd/ctxhook-hook")
		c.Env = append(c.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v %s", tt.tags, err, out)
		}
		if err := releaseBuild(bin); (err == nil) != tt.ok {
			t.Errorf("%s: releaseBuild = %v, want accepted: %v", tt.tags, err, tt.ok)
		}
	}
}

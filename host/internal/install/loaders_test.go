package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/adapters"
	"github.com/ctxhook/ctxhook/internal/testdir"
)

// TestLoaderFilesOnlyOurs: the OpenCode (and Kilo) loader and the Pi
// extension are ctxhook's only as ctxhook wrote them: what this binary
// writes, or what the journal says ctxhook last wrote there (an older
// release's, replaced). A copy the user edited keeps ctxhook's marker
// line yet is theirs: install and uninstall refuse to touch it.
func TestLoaderFilesOnlyOurs(t *testing.T) {
	wasm := []byte("\x00asm not really")
	kinds := []struct {
		name   string
		marker string
		path   func(dir string) string
		run    func(dir string, j Journal, install bool) error
	}{
		{"opencode", adapters.OpenCodeMarker, func(dir string) string { return LoaderPaths(OpenCode, dir).Plugin },
			func(dir string, j Journal, install bool) error {
				_, err := InstallLoader(LoaderPaths(OpenCode, dir), "/opt/bin/ctxhook", wasm, install, j)
				return err
			}},
		{"pi", adapters.PiMarker, ExtensionPath,
			func(dir string, j Journal, install bool) error {
				_, err := InstallExtension(ExtensionPath(dir), "/opt/bin/ctxhook", install, j)
				return err
			}},
	}
	for _, k := range kinds {
		t.Run(k.name+"/edited copy", func(t *testing.T) {
			dir, j := testdir.New(t), testJournal(t)
			if err := k.run(dir, j, true); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(k.path(dir))
			mine := append(b, []byte("\n// my change\n")...)
			os.WriteFile(k.path(dir), mine, 0o644)
			for _, install := range []bool{true, false} {
				if err := k.run(dir, j, install); err == nil || !strings.Contains(err.Error(), "was not written by ctxhook") {
					t.Errorf("install=%v over the user's edited copy: %v", install, err)
				}
				if got, _ := os.ReadFile(k.path(dir)); string(got) != string(mine) {
					t.Fatalf("install=%v changed the user's copy", install)
				}
			}
		})
		t.Run(k.name+"/an older release's", func(t *testing.T) {
			dir, j := testdir.New(t), testJournal(t)
			path := k.path(dir)
			older := []byte(k.marker + "\n// an older loader\n")
			if err := j.Write(Plan{Path: path, After: older, Changed: true}, true); err != nil {
				t.Fatal(err)
			}
			if err := k.run(dir, j, true); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); string(got) == string(older) {
				t.Error("the older file was not replaced")
			}
			if err := k.run(dir, j, false); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); err == nil {
				t.Error("uninstall left the file")
			}
		})
		t.Run(k.name+"/a file not ctxhook's", func(t *testing.T) {
			dir, j := testdir.New(t), testJournal(t)
			path := k.path(dir)
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(k.marker+"\n// the user's own, with the marker\n"), 0o644)
			if err := k.run(dir, j, true); err == nil {
				t.Error("install replaced it")
			}
		})
	}
}

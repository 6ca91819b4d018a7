package install

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/internal/testdir"
)

func TestMayVanish(t *testing.T) {
	if testdir.UnderWine() {
		t.Skip("Wine's symbolic links do not resolve as the test's temp-directory link needs; the Linux and macOS runs cover it")
	}
	root := testdir.New(t)
	tmp := filepath.Join(root, "tmp")
	os.MkdirAll(tmp, 0o700)
	link := filepath.Join(root, "tmplink") // as macOS's /tmp -> /private/tmp
	if err := os.Symlink(tmp, link); err != nil {
		t.Fatal(err)
	}
	volatile := []string{link, "", "relative/tmp"}
	for _, c := range []struct {
		exe, want string
	}{
		{"/home/u/.npm/_npx/1a2b/node_modules/@ctxhook/linux-x64/bin/ctxhook", "npx's cache"},
		{`/c/Users/u/AppData/Local/npm-cache/_npx/1a2b/node_modules/@ctxhook/win32-x64/bin/ctxhook.exe`, "npx's cache"},
		{filepath.Join(tmp, "go-build1/b001/exe/ctxhook"), "a temporary or cache directory"},
		{filepath.Join(link, "x/ctxhook"), "a temporary or cache directory"},
		{"/home/u/.local/bin/ctxhook", ""},
		{"/usr/local/lib/node_modules/ctxhook/node_modules/@ctxhook/linux-x64/bin/ctxhook", ""},
		{"/home/u/_npxx/ctxhook", ""},
		{tmp + "x/ctxhook", ""}, // a sibling whose name starts the same
		{tmp, ""},               // the directory itself is no binary in it
		{"relative/tmp/ctxhook", ""},
	} {
		got := MayVanish(c.exe, volatile)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("MayVanish(%s) = %q, want %q", c.exe, got, c.want)
		}
	}
}

// TestStableCopy: the binaries are copied byte for byte into a private
// directory named by version and content, a second copy finds them, a
// damaged copy is replaced, and another build gets a directory of its own.
func TestStableCopy(t *testing.T) {
	root := testdir.New(t)
	src := filepath.Join(root, "_npx", "bin")
	os.MkdirAll(src, 0o755)
	exe, hook := filepath.Join(src, "ctxhook"+exeSuffix), filepath.Join(src, "ctxhook-hook"+exeSuffix)
	os.WriteFile(exe, []byte("ctxhook binary"), 0o755)
	os.WriteFile(hook, []byte("hook client"), 0o755)
	bin := filepath.Join(root, "state", "bin")
	s, err := PlanStable(bin, exe, "9.9.9")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(s.Dir) != bin || !strings.HasPrefix(filepath.Base(s.Dir), "9.9.9-") || s.Exe != filepath.Join(s.Dir, "ctxhook"+exeSuffix) {
		t.Fatalf("planned %+v", s)
	}
	if _, err := os.Stat(s.Dir); err == nil {
		t.Fatal("PlanStable wrote")
	}
	if wrote, err := s.Copy(); err != nil || !wrote {
		t.Fatalf("copy: %v %v", wrote, err)
	}
	same := func() {
		t.Helper()
		for from, to := range map[string]string{exe: s.Exe, hook: HookClient(s.Exe)} {
			a, _ := os.ReadFile(from)
			b, err := os.ReadFile(to)
			if err != nil || !bytes.Equal(a, b) {
				t.Errorf("%s: %q, want %q (%v)", to, b, a, err)
			}
		}
	}
	same()
	// Windows keeps no Unix modes (its directories are owner-only by ACL,
	// package owned): the mode is checked where there is one.
	if fi, _ := os.Stat(s.Dir); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %o", fi.Mode().Perm())
	}
	if wrote, err := s.Copy(); err != nil || wrote {
		t.Errorf("second copy: %v %v", wrote, err)
	}
	os.WriteFile(s.Exe, []byte("damaged"), 0o700)
	if wrote, err := s.Copy(); err != nil || !wrote {
		t.Errorf("copy over a damaged one: %v %v", wrote, err)
	}
	same()
	if leftovers, _ := filepath.Glob(filepath.Join(s.Dir, ".*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	os.WriteFile(exe, []byte("another build"), 0o755)
	if s2, err := PlanStable(bin, exe, "9.9.9"); err != nil || s2.Dir == s.Dir {
		t.Errorf("another build planned into %s (%v)", s2.Dir, err)
	}
}

// TestRemoveUnusedBinaries: a copy goes only when no journaled file
// names a binary in it.
func TestRemoveUnusedBinaries(t *testing.T) {
	root := testdir.New(t)
	bin := filepath.Join(root, "bin")
	used, unused := filepath.Join(bin, "1.0.0-aaa"), filepath.Join(bin, "1.0.0-bbb")
	for _, d := range []string{used, unused} {
		os.MkdirAll(d, 0o700)
		os.WriteFile(filepath.Join(d, "ctxhook"), []byte("x"), 0o700)
	}
	j := Journal{Dir: filepath.Join(root, "installs"), Harness: "claude-code"}
	settings := filepath.Join(root, "settings.json")
	if err := j.Write(Plan{Path: settings, After: []byte("{}"), Changed: true, Exe: filepath.Join(used, "ctxhook")}, true); err != nil {
		t.Fatal(err)
	}
	removed, err := RemoveUnusedBinaries(bin, j)
	if err != nil || len(removed) != 1 || removed[0] != unused {
		t.Fatalf("removed %v (%v)", removed, err)
	}
	if _, err := os.Stat(used); err != nil {
		t.Errorf("removed the copy the journal names: %v", err)
	}
	// Uninstalled: the journal forgets the file, and the copy goes.
	if err := j.Write(Plan{Path: settings, Before: []byte("{}"), Changed: true}, false); err != nil {
		t.Fatal(err)
	}
	if removed, err := RemoveUnusedBinaries(bin, j); err != nil || len(removed) != 1 || removed[0] != used {
		t.Errorf("after uninstall removed %v (%v)", removed, err)
	}
	if _, err := os.Stat(bin); err == nil {
		t.Error("empty bin directory left")
	}
}

package install

import (
	"github.com/ctxhook/ctxhook/internal/testdir"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func plan(t *testing.T, path, after string) Plan {
	t.Helper()
	before, err := os.ReadFile(path)
	if err != nil {
		before = nil
	}
	return Plan{Path: path, Before: before, After: []byte(after), Changed: string(before) != after || before == nil}
}

// TestJournal: Restore puts back the original bytes (and mode) of a file
// only this harness changed and nobody else changed since, removes a file
// and the directories install created, leaves a file changed by someone
// else to the structural uninstall, and waits for the last of two
// harnesses sharing a file.
func TestJournal(t *testing.T) {
	dir := testdir.New(t)
	jdir := filepath.Join(dir, "journal")
	a, b := Journal{Dir: jdir, Harness: "a"}, Journal{Dir: jdir, Harness: "b"}
	orig := filepath.Join(dir, "settings.json")
	os.WriteFile(orig, []byte("{\n\t\"x\": 1\n}\n"), 0o640)
	os.Chmod(orig, 0o640)
	created := filepath.Join(dir, "new", "deep", "hooks.json")
	edited := filepath.Join(dir, "edited.json")
	os.WriteFile(edited, []byte("{}"), 0o600)
	shared := filepath.Join(dir, "shared.json")
	os.WriteFile(shared, []byte("{ }"), 0o600)

	for _, p := range []Plan{plan(t, orig, "{\"x\": 1, \"ours\": 1}\n"), plan(t, created, "{\"ours\": 1}\n"), plan(t, edited, "{\"ours\": 1}\n"), plan(t, shared, "{\"a\": 1}\n")} {
		if err := a.Write(p, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Write(plan(t, shared, "{\"a\": 1, \"b\": 1}\n"), true); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(edited, []byte("{\"ours\": 1, \"mine\": 2}\n"), 0o600) // the user's edit

	dry, err := a.Restore(true)
	if err != nil || len(dry) != 2 {
		t.Fatalf("dry run: %v %v", dry, err)
	}
	if b, _ := os.ReadFile(orig); string(b) == "{\n\t\"x\": 1\n}\n" {
		t.Fatal("a dry run restored")
	}
	got, err := a.Restore(false)
	if err != nil || len(got) != 2 || got[1].Path != orig && got[0].Path != orig {
		t.Fatalf("restored %v %v", got, err)
	}
	if b, _ := os.ReadFile(orig); string(b) != "{\n\t\"x\": 1\n}\n" {
		t.Errorf("original not put back: %q", b)
	}
	if fi, _ := os.Stat(orig); fi.Mode().Perm() != 0o640 && runtime.GOOS != "windows" { // Windows has no mode bits
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("the directories install created are left: %v", err)
	}
	if b, _ := os.ReadFile(edited); string(b) != "{\"ours\": 1, \"mine\": 2}\n" {
		t.Errorf("a file the user changed was restored: %q", b)
	}
	if b, _ := os.ReadFile(shared); string(b) != "{\"a\": 1, \"b\": 1}\n" {
		t.Errorf("a file another harness still uses was restored: %q", b)
	}
	// b's uninstall takes its entry out; a's is gone too (a uninstalled
	// structurally): then the journal lets go of the file.
	if err := b.Write(plan(t, shared, "{\"a\": 1}\n"), false); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.Restore(false); len(got) != 0 {
		t.Errorf("b restored %v while a is still recorded", got)
	}
	if err := a.Write(plan(t, shared, "{ }"), false); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(jdir, "*.json")); len(left) != 1 { // edited.json's record
		t.Errorf("journal records left: %v", left)
	}
}

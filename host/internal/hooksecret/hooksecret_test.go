package hooksecret

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestEnsure: the secret is made once (0600, 32 random bytes in hex),
// kept by later installs, agreed on by installs at once, and replaced
// when the file holds none or others may read it.
func TestEnsure(t *testing.T) {
	dir := t.TempDir()
	path := Path(dir)
	if _, err := Read(path); err == nil {
		t.Fatal("a missing secret was read")
	}
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i], _ = Ensure(path) }()
	}
	wg.Wait()
	for _, s := range got {
		if s != got[0] || len(s) != 64 {
			t.Fatalf("installs at once disagree: %q", got)
		}
	}
	if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if again, _ := Ensure(path); again != got[0] {
		t.Errorf("a second install changed the secret")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".hook-secret-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	for _, bad := range []struct {
		name, content string
		mode          os.FileMode
	}{
		{"not hex", strings.Repeat("z", 64), 0o600},
		{"too short", "abcd", 0o600},
		{"readable by others", got[0], 0o644},
	} {
		if bad.mode&0o077 != 0 && runtime.GOOS == "windows" {
			continue
		}
		os.Remove(path)
		os.WriteFile(path, []byte(bad.content), bad.mode)
		os.Chmod(path, bad.mode)
		if _, err := Read(path); err == nil {
			t.Errorf("%s: read as a secret", bad.name)
		}
		s, err := Ensure(path)
		if err != nil || s == got[0] || len(s) != 64 {
			t.Errorf("%s: Ensure gave %q %v, want a new secret", bad.name, s, err)
		}
	}
}

func TestMatches(t *testing.T) {
	s := strings.Repeat("ab", 32)
	for _, tt := range []struct {
		installed, presented string
		want                 bool
	}{
		{s, s, true}, {s, s[:63], false}, {s, s + "a", false}, {s, "", false}, {"", "", false}, {s, strings.ToUpper(s), false},
	} {
		if got := Matches(tt.installed, tt.presented); got != tt.want {
			t.Errorf("Matches(%q, %q) = %v", tt.installed, tt.presented, got)
		}
	}
}

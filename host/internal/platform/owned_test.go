//go:build unix

package platform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// other is a uid that is not this process's: nobody.
const other = 65534

func TestDir(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(base, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	good := mk("good", 0o700)
	if err := OwnedDir(good); err != nil {
		t.Fatalf("a 0700 directory of this user's: %v", err)
	}
	if err := OwnedDir(mk("readable", 0o755)); err != nil {
		t.Fatalf("a 0755 directory of this user's: %v", err)
	}
	if err := OwnedDir(mk("world", 0o777)); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a 0777 directory: %v", err)
	}
	// Group write: fine for the user's private group (umask 002 on Debian
	// and Ubuntu), not for a group of others.
	group := mk("group", 0o770)
	if err := OwnedDir(group); (err == nil) != privateGroup(uint32(os.Getegid())) {
		t.Errorf("a 0770 directory of the user's own group: %v (private group: %v)", err, privateGroup(uint32(os.Getegid())))
	}
	if os.Geteuid() == 0 {
		os.Chown(group, -1, other)
		if err := OwnedDir(group); err == nil || !strings.Contains(err.Error(), "writable by others") {
			t.Errorf("a 0770 directory of group %d: %v", other, err)
		}
	}
	// A link of this user's, in a directory of theirs, to a good
	// directory: followed (tests share a cache through one).
	link := filepath.Join(base, "link")
	os.Symlink(good, link)
	if err := OwnedDir(link); err != nil {
		t.Errorf("this user's link to a good directory: %v", err)
	}
	// A link to a directory others may write: its target is checked.
	badLink := filepath.Join(base, "badlink")
	os.Symlink(filepath.Join(base, "world"), badLink)
	if err := OwnedDir(badLink); err == nil {
		t.Error("a link to a 0777 directory was accepted")
	}
	// A link in a directory others may write (the /tmp fallback): refused
	// unless it is this user's; as root, one of another user is tried.
	open := mk("open", 0o777)
	os.Chmod(open, 0o777|os.ModeSticky)
	planted := filepath.Join(open, "sock-dir")
	os.Symlink(good, planted)
	if os.Geteuid() != 0 {
		t.Log("not root: the other-owner cases need chown and are not run")
		return
	}
	os.Lchown(planted, other, other)
	if err := OwnedDir(planted); err == nil || !strings.Contains(err.Error(), "symbolic link of uid 65534") {
		t.Errorf("a link of uid %d in a sticky directory: %v", other, err)
	}
	theirs := mk("theirs", 0o700)
	os.Chown(theirs, other, other)
	if err := OwnedDir(theirs); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Errorf("a directory of uid %d: %v", other, err)
	}
	// Under a directory someone else owns: they can swap what is below.
	parent := mk("parent", 0o755)
	inner := filepath.Join(parent, "cache")
	os.Mkdir(inner, 0o700)
	os.Chown(parent, other, other)
	if err := OwnedDir(inner); err == nil || !strings.Contains(err.Error(), "above a directory") {
		t.Errorf("a directory under one of uid %d: %v", other, err)
	}
}

func TestTree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	os.MkdirAll(filepath.Join(dir, "sub"), 0o700)
	f := filepath.Join(dir, "sub", "entry")
	os.WriteFile(f, []byte("code"), 0o600)
	if err := OwnedTree(dir, 2); err != nil {
		t.Fatalf("a clean tree: %v", err)
	}
	os.Chmod(f, 0o666)
	if err := OwnedTree(dir, 2); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a 0666 entry: %v", err)
	}
	os.Chmod(f, 0o600)
	os.Symlink("/etc/passwd", filepath.Join(dir, "sub", "link"))
	if err := OwnedTree(dir, 2); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a link inside: %v", err)
	}
	os.Remove(filepath.Join(dir, "sub", "link"))
	if os.Geteuid() != 0 {
		return
	}
	os.Chown(f, other, other)
	if err := OwnedTree(dir, 2); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Errorf("an entry of uid %d: %v", other, err)
	}
}

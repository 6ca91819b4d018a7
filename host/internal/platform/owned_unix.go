//go:build unix

package platform

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// OwnedDir checks that dir is a directory (not a symbolic link) owned by this
// process's effective user and writable by no one else, checked on the
// directory opened (no link followed), and that no directory above it
// can be replaced by someone else: each is owned by this user or root and
// writable by others only with the sticky bit (/tmp).
//
// A symbolic link in its place is followed only when it is this user's
// and sits in a directory that passes the check above: then nobody else
// can have placed it or can swap it, and its target is checked as dir.
func OwnedDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if uid, _ := owner(fi); uid != os.Geteuid() {
			return fmt.Errorf("%s is a symbolic link of uid %d, not of this user (%d)", abs, uid, os.Geteuid())
		}
		for p := filepath.Dir(abs); ; p = filepath.Dir(p) {
			if err := ancestor(p); err != nil {
				return err
			}
			if p == filepath.Dir(p) {
				break
			}
		}
		target, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return err
		}
		return OwnedDir(target)
	}
	fd, err := syscall.Open(abs, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		if err == syscall.ENOTDIR {
			return notADirectory(abs)
		}
		if err == syscall.ELOOP {
			return fmt.Errorf("%s is a symbolic link that was put in place while it was checked", abs)
		}
		return &fs.PathError{Op: "open", Path: abs, Err: err}
	}
	var st syscall.Stat_t
	err = syscall.Fstat(fd, &st)
	syscall.Close(fd)
	if err != nil {
		return err
	}
	if int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s is owned by uid %d, not by this user (%d)", abs, st.Uid, os.Geteuid())
	}
	if writableByOthers(uint32(st.Mode), st.Gid) {
		return fmt.Errorf("%s is writable by others (mode %o)", abs, st.Mode&0o777)
	}
	for p := filepath.Dir(abs); ; p = filepath.Dir(p) {
		if err := ancestor(p); err != nil {
			return err
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// notADirectory names the file that stands where a directory of abs's
// path should be (CTXHOOK_HOME set to a file, say), and what to do.
func notADirectory(abs string) error {
	file := abs
	for p := abs; p != filepath.Dir(p); p = filepath.Dir(p) {
		if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
			file = p
		}
	}
	return fmt.Errorf("%s is a file, not a directory: move it aside, or point CTXHOOK_HOME (or XDG_STATE_HOME) at a directory ('ctxhook doctor <harness>' shows the paths)", file)
}

func ancestor(p string) error {
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		return err
	}
	if int(st.Uid) != os.Geteuid() && st.Uid != 0 {
		return fmt.Errorf("%s (above a directory of ctxhook's) is owned by uid %d", p, st.Uid)
	}
	if writableByOthers(uint32(st.Mode), st.Gid) && st.Mode&syscall.S_ISVTX == 0 {
		return fmt.Errorf("%s (above a directory of ctxhook's) is writable by others (mode %o)", p, st.Mode&0o777)
	}
	return nil
}

// writableByOthers reports a mode that lets another user write: world
// write, or group write unless the group is the user's private group
// (the convention of Debian and Ubuntu, whose umask 002 makes the user's
// directories 0775: their group holds the user alone).
func writableByOthers(mode uint32, gid uint32) bool {
	return mode&0o002 != 0 || (mode&0o020 != 0 && !privateGroup(gid))
}

var private struct {
	once sync.Once
	gid  int
	ok   bool
}

// privateGroup reports whether gid is this user's private group
// (isPrivateGroup), from /etc/passwd and /etc/group.
func privateGroup(gid uint32) bool {
	private.once.Do(func() {
		passwd, err1 := readAccounts("/etc/passwd")
		group, err2 := readAccounts("/etc/group")
		if err1 != nil || err2 != nil {
			return
		}
		private.gid, private.ok = os.Getegid(), isPrivateGroup(passwd, group, os.Geteuid(), os.Getegid())
	})
	return private.ok && int(gid) == private.gid
}

// readAccounts reads an account file, at most 16 MiB of it.
func readAccounts(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 16<<20))
	return string(b), err
}

// foreign: p is another user's, or others may write it.
func foreign(p string, fi fs.FileInfo) error {
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s is owned by uid %d, not by this user (%d)", p, uid, os.Geteuid())
	}
	if othersMayWrite(fi) {
		return fmt.Errorf("%s is writable by others (mode %v)", p, fi.Mode().Perm())
	}
	return nil
}

func owner(fi fs.FileInfo) (int, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), true
	}
	return 0, false
}

// PrivateFiles makes what this process creates from now on private to
// its user (umask 077), whatever the user's umask: ctxhook writes only
// captured output, state and compiled code.
func PrivateFiles() { syscall.Umask(0o077) }

// Tighten makes dir, when it is a real directory of this user's, 0700:
// one created under a permissive umask, or by an older release.
func Tighten(dir string) {
	var st syscall.Stat_t
	if syscall.Lstat(dir, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFDIR && int(st.Uid) == os.Geteuid() {
		os.Chmod(dir, 0o700)
	}
}

func othersMayWrite(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fi.Mode().Perm()&0o022 != 0
	}
	return writableByOthers(uint32(fi.Mode().Perm()), st.Gid)
}

// TightenFile makes path, when it is a regular file of this user's, 0600.
func TightenFile(path string) {
	var st syscall.Stat_t
	if syscall.Lstat(path, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG && int(st.Uid) == os.Geteuid() {
		os.Chmod(path, 0o600)
	}
}

// linkMine: the symbolic link p is this user's (its own mode bits mean
// nothing: only its owner and directory's can change it).
func linkMine(p string, fi fs.FileInfo) error {
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s is a symbolic link of uid %d, not of this user (%d)", p, uid, os.Geteuid())
	}
	return nil
}

// MayCreate refuses to create dir (or anything under it) as root inside
// a directory tree of another user: a hook run as root with a user's HOME
// (env -i HOME=~user ctxhook hook ...) would leave root-owned
// directories there, a spool the user's own hooks then cannot write.
// The nearest directory of dir that exists decides whose tree it is.
// For any other user it returns nil: the kernel and OwnedDir do the checking.
func MayCreate(dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(abs); err == nil {
		return nil // nothing to create: OwnedDir judges what exists
	}
	for p := abs; ; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if err == nil {
			if uid, ok := owner(fi); ok && uid != 0 {
				return fmt.Errorf("not creating %s as root: %s belongs to uid %d (run ctxhook as that user)", abs, p, uid)
			}
			return nil
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// FileOwner returns the uid that owns path (not following a link).
func FileOwner(path string) (int, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, false
	}
	return owner(fi)
}

// Ownership checks: that what ctxhook loads or writes is the user's
// alone. Other local users are not trusted (RATIONALE.md, "Whom does
// ctxhook trust?"): a directory someone else owns or may write can be
// filled with compiled native code that ctxhook would run, or with files
// that receive captured tool output. Such a directory is refused, and the
// caller takes its safe fallback (no compilation cache, no daemon).

package platform

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// OwnedTree checks dir as OwnedDir does and everything under it, at most depth
// levels down: no symbolic links, each entry owned by this process's
// effective user and writable by no one else. For a directory whose
// files are loaded as code (the compilation cache): with dir safe, no one
// else can add or swap an entry after the check, so one checked before
// is the one read.
func OwnedTree(dir string, depth int) error {
	if err := OwnedDir(dir); err != nil {
		return err
	}
	return walk(dir, depth)
}

func walk(dir string, depth int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(p)
		if err != nil {
			if os.IsNotExist(err) {
				continue // removed meanwhile (by this user: the dir is theirs)
			}
			return err
		}
		if err := mine(p, fi); err != nil {
			return err
		}
		if fi.IsDir() && depth > 0 {
			if err := walk(p, depth-1); err != nil {
				return err
			}
		}
	}
	return nil
}

// mine checks one entry: not a link, this user's, writable by no one else
// (foreign says how, per OS: a uid and mode bits, or an owner SID and an
// access control list).
func mine(p string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link", p)
	}
	return foreign(p, fi)
}

// OwnedFile checks an existing file ctxhook is about to open: not a symbolic
// link, this user's, writable by no one else. A file that does not exist
// passes (the caller creates it, privately).
func OwnedFile(path string) error {
	fi, err := os.Lstat(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return mine(path, fi)
}

// LinkTarget returns the file the symbolic link at path leads to, when
// ctxhook may write that file through the link (a dotfiles manager links
// ~/.claude/settings.json into the user's checkout): every link on the
// way is this user's, and the file at the end is a regular file of this
// user's that no one else may write, in a directory no one else may
// write. A link another user planted, or one into another user's file,
// is refused: writing through it would change their file, or let them
// choose which of the user's files ctxhook rewrites.
func LinkTarget(path string) (string, error) {
	p := path
	for hops := 0; hops < 40; hops++ {
		fi, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, regularMine(p, fi)
		}
		if err := linkMine(p, fi); err != nil {
			return "", err
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = to
	}
	return "", fmt.Errorf("%s: too many symbolic links", path)
}

// regularMine checks a link's final file and its directory, where the
// file is replaced.
func regularMine(p string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", p)
	}
	if err := foreign(p, fi); err != nil {
		return err
	}
	dir := filepath.Dir(p)
	dfi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	return foreign(dir, dfi)
}

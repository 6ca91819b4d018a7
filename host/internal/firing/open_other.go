//go:build !unix

package firing

import "os"

// openMine opens path for reading only when it is a regular file (the
// file opened is the one checked); the user's profile DACL keeps others'
// files out on Windows.
func openMine(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, os.ErrPermission
	}
	return f, nil
}

//go:build !unix

package owned

import "io/fs"

// Dir checks nothing where ownership is not a Unix uid; Windows gets its
// owner-only ACLs with the platform work (see RATIONALE.md).
func Dir(dir string) error { return nil }

func owner(fs.FileInfo) (int, bool) { return 0, false }

// PrivateFiles does nothing where files have no Unix mode.
func PrivateFiles() {}

// Tighten does nothing where files have no Unix mode.
func Tighten(dir string) {}

func othersMayWrite(fs.FileInfo) bool { return false }

// TightenFile does nothing where files have no Unix mode.
func TightenFile(path string) {}

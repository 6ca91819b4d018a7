package platform

import "io/fs"

// OwnedOpened checks a file already open, by its Stat: this user's, writable
// by no one else. Checking the open file rather than the path leaves no
// gap between the check and the read in which the path could be swapped.
func OwnedOpened(path string, fi fs.FileInfo) error { return foreign(path, fi) }

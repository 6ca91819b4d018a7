package engine

import (
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// readFiles reads the files a decision needs (abi.PrepareResponse.Files).
// The plugin names only files the harness writes for the session, but a
// name comes from a payload: a file is read only if it is a regular file
// (not a link, a FIFO or a device), of this user, and no larger than
// abi.MaxFileBytes, checked on the file opened, not on its name.
func readFiles(names []string) []abi.File {
	out := make([]abi.File, 0, len(names))
	for _, name := range names {
		content, err := readOwnFile(name)
		f := abi.File{Path: name, Content: content, Bytes: len(content)}
		if err != nil {
			f.Error = err.Error()
		}
		out = append(out, f)
	}
	return out
}

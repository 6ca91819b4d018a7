// Terminals. IsTerminal tells whether a stream is a terminal: commands that
// destroy data ask before they do only when a person is there to answer.
// A character device is not enough (/dev/null is one), so each OS asks
// the terminal driver itself, in a file of its own.

package platform

import (
	"io"
	"os"
)

// IsTerminal reports whether r is a terminal.
func IsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && f != nil && isTerminal(f.Fd())
}

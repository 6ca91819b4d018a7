//go:build !unix

package ownsecrets

// Windows has no O_NOFOLLOW and opens no FIFO by name; the open file's
// Stat is checked as on Unix.
const (
	noFollow = 0
	noBlock  = 0
)

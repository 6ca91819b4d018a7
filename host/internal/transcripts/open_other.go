//go:build !unix

package transcripts

import "os"

// openFlags: Windows opens no FIFO by name and has no O_NOFOLLOW; the
// open file's Stat is checked as on Unix.
const openFlags = os.O_RDONLY

// Files with no name. MemFile holds a payload in a file that has no name, for a
// process handed a hook to read as its stdin (a finisher, an in-process
// run). On Linux it is a memfd: writing tens of MiB to it is a memory
// copy, where a temporary file on disk cost a second and more for 49 MiB
// once the kernel throttled a busy machine's dirty pages, past the hook's
// deadline. Elsewhere it is a temporary file, removed at once.
//
// It links only os and syscall: the hook client uses it.

package platform

import "os"

// MemFile returns a file holding b, open for reading at its start, readable
// by this user only.
func MemFile(b []byte) (*os.File, error) {
	f, err := memfd()
	if err != nil {
		if f, err = os.CreateTemp("", "ctxhook-payload-"); err != nil {
			return nil, err
		}
		os.Remove(f.Name())
	}
	if _, err = f.Write(b); err == nil {
		_, err = f.Seek(0, 0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

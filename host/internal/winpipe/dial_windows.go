package winpipe

import (
	"time"

	"golang.org/x/sys/windows"
)

// Dial connects to the pipe name until until, and only to a server that
// runs as sid: a pipe someone else created under the name is closed
// unused (ErrNotMine). The client allows identification only, so the
// server cannot act as this user with its token.
func Dial(name string, sid *windows.SID, until time.Time) (*Conn, error) {
	u, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	for {
		h, err := windows.CreateFile(u, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING,
			windows.FILE_FLAG_OVERLAPPED|windows.SECURITY_SQOS_PRESENT|windows.SECURITY_IDENTIFICATION, 0)
		if err == windows.ERROR_PIPE_BUSY && time.Now().Before(until) {
			// Every instance is taken for a moment (the server makes the
			// next one right after an accept).
			time.Sleep(2 * time.Millisecond)
			continue
		}
		if err != nil {
			return nil, err
		}
		var pid uint32
		if windows.GetNamedPipeServerProcessId(h, &pid) != nil || !peerIsMine(pid, sid) {
			windows.CloseHandle(h)
			return nil, ErrNotMine
		}
		c := &Conn{h: h, name: name}
		c.SetDeadline(until)
		return c, nil
	}
}

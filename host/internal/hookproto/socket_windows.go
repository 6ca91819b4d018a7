package hookproto

import "os"

// SocketIsMine reports whether the daemon's marker file is at sock
// (the daemon writes it when its pipe serves): only then is the pipe
// worth opening. Whose the pipe is is checked when it is opened: the
// server's process must run as this user (winpipe.Dial).
func SocketIsMine(sock string) bool {
	fi, err := os.Lstat(sock)
	return err == nil && fi.Mode().IsRegular()
}

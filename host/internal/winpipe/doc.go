// Package winpipe is the daemon's endpoint on Windows: a named pipe whose
// security descriptor admits only the user who created it, served and
// dialed with overlapped I/O so that every read and write honours a
// deadline. Both ends also check who is on the other side (the server's
// or the client's process token must carry the caller's own user SID):
// the descriptor keeps other users out, the check keeps a pipe another
// user created first under the same name from being trusted.
//
// It has code only on Windows; it links nothing but the standard library
// and golang.org/x/sys/windows, so the hook client can use it.
package winpipe

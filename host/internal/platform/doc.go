// Package platform is ctxhook's code that differs per operating system,
// in one place, one file per OS where it differs (the rest of the host
// names no OS): exclusive file locks (flock), processes that outlive
// their starter (detach), payloads in files with no name (memfile),
// large buffers filled without clearing (bigbuf), whether a stream is a
// terminal and text made safe to print on one (tty, termsafe), the
// watchdog that ends a process whose plugin call never returns
// (watchdog*), the checks that a file or directory is the user's alone
// (owned*), the peer credentials of a socket's client (peercred_*), and
// where ctxhook keeps its files by default (paths_*).
//
// It links only the standard library and golang.org/x/sys, and no net
// or cgo: the hook client uses it (host/cmd/ctxhook-hook's
// TestClientStaysLean).
package platform

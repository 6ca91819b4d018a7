// Package platform is ctxhook's code that differs per operating system,
// in one place, one file per OS where it differs: exclusive file locks,
// processes that outlive their starter, payloads in files with no name,
// large buffers filled without clearing, and whether a stream is a
// terminal.
//
// It links only os, syscall and golang.org/x/sys: the hook client uses it
// (host/cmd/ctxhook-hook's TestClientStaysLean).
package platform

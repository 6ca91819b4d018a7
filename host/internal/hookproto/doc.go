// Package hookproto is what the hook client (ctxhook-hook), the hook
// command and the daemon agree on: the frames on the daemon's socket, the
// build both sides must be, and a hook's budget in time and bytes. It is
// small and links nothing heavy (no plugin runner, no SQLite, no net),
// because the hook client links it and must start as fast as an empty Go
// program; keeping it out of the daemon and hook packages also keeps the
// hook package from importing back up into the daemon's.
package hookproto

// Command ctxhook captures, relays and indexes what AI coding agents get
// from MCP servers. See README.md.
package main

import (
	"os"

	"github.com/ctxhook/ctxhook/host/internal/cli"
	"github.com/ctxhook/ctxhook/host/internal/platform"
)

func main() {
	// Started as the watchdog helper of another ctxhook process (systems
	// without Linux's kernel timer; package watchdog).
	// Only when both the argument and the parent's pid say so: a stray
	// variable is reported once and ignored.
	if pid, ok := platform.WatchdogHelper(os.Args[1:], os.Getenv, os.Stderr); ok {
		platform.ServeWatchdog(pid)
		return
	}
	os.Exit(cli.Main(os.Args[1:], cli.IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, os.Getenv))
}

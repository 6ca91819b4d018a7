// Command ctxhook captures, relays and indexes what AI coding agents get
// from MCP servers. See README.md.
package main

import (
	"os"
	"strconv"

	"github.com/ctxhook/ctxhook/host/internal/cli"
	"github.com/ctxhook/ctxhook/host/internal/platform"
)

func main() {
	// Started as the watchdog helper of another ctxhook process (systems
	// without Linux's kernel timer; package watchdog).
	if p := os.Getenv(platform.EnvWatchdogParent); p != "" {
		if pid, err := strconv.Atoi(p); err == nil {
			platform.ServeWatchdog(pid)
		}
		return
	}
	os.Exit(cli.Main(os.Args[1:], cli.IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, os.Getenv))
}

// Command ctxhook captures, relays and indexes what AI coding agents get
// from MCP servers. See README.md.
package main

import (
	"os"

	"github.com/ctxhook/ctxhook/host/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, os.Getenv))
}

// Command relay starts the command it is given and passes its stdin and
// stdout through, deciding nothing: TestProxyFirstAnswer times it as the
// floor of any process that stands between a client and its server.
package main

import (
	"os"
	"os/exec"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		os.Exit(1)
	}
}

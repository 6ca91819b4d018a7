package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestClientStaysLean: the hook client starts on every hook, so it links
// nothing that decides (wazero, SQLite) and nothing that makes a Go
// binary dynamically linked when a C toolchain is present: net, os/user
// or anything else that pulls in runtime/cgo. A dynamically linked
// client started about 0.8 ms slower per hook (RATIONALE.md, "Why a
// separate hook client binary?"); os/user once made it so unnoticed.
func TestClientStaysLean(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command("go", "list", "-deps", ".")
		cmd.Env = append(cmd.Environ(), "GOOS="+goos, "CGO_ENABLED=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list (%s): %v\n%s", goos, err, out)
		}
		for _, pkg := range strings.Fields(string(out)) {
			switch {
			// Windows has no cgo here, and its client reaches the
			// daemon through net.
			// os/exec, context and bufio only add start-up work here
			// (the watchdog helper starts with os.StartProcess).
			case pkg == "runtime/cgo", goos != "windows" && (pkg == "net" || pkg == "os/user" || pkg == "os/exec" || pkg == "context" || pkg == "bufio"),
				strings.Contains(pkg, "tetratelabs/wazero"), strings.Contains(pkg, "go-sqlite3"), strings.Contains(pkg, "extism"):
				t.Errorf("%s: the hook client links %s", goos, pkg)
			}
		}
	}
}

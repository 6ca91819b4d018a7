package platform

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestIsTerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	for name, f := range map[string]*os.File{"/dev/null (a character device)": null, "a pipe": r} {
		if IsTerminal(f) {
			t.Errorf("%s is taken for a terminal", name)
		}
	}
	if IsTerminal(strings.NewReader("x")) {
		t.Error("a string reader is taken for a terminal")
	}
	// A real terminal: script(1) runs this test binary on a pty.
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) to make a terminal")
	}
	if os.Getenv("TTY_TEST_CHILD") == "1" {
		if IsTerminal(os.Stdin) {
			os.Stdout.WriteString("stdin is a terminal\n")
		}
		return
	}
	cmd := exec.Command(script, "-qec", os.Args[0]+" -test.run=^TestIsTerminal$", os.DevNull)
	cmd.Env = append(os.Environ(), "TTY_TEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "stdin is a terminal") {
		t.Errorf("on a pty: %v\n%s", err, out)
	}
}

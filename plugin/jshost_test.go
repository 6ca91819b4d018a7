package plugin_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/conformance"
)

// TestJSHostMatchesGoHost runs the whole conformance corpus through the
// JavaScript host (adapters/core, @extism/extism) on real Node and on the
// Bun release OpenCode embeds, and through the Go host, and requires the
// same raw output bytes for every case.
func TestJSHostMatchesGoHost(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed for the JS host comparison (Node 20+); .ci/run installs it")
	}
	if _, err := os.Stat("../adapters/node_modules/@extism/extism"); err != nil {
		t.Fatal("adapters/node_modules is missing: run 'make adapters' (npm ci in adapters/)")
	}
	t.Run("node", func(t *testing.T) { compareJSHost(t, node) })
	// npm installs Bun (an optional dependency) only where a build exists.
	bun, _ := filepath.Abs("../adapters/node_modules/@oven/bun-linux-x64/bin/bun")
	if _, err := os.Stat(bun); err == nil {
		t.Run("bun", func(t *testing.T) { compareJSHost(t, bun) })
	} else {
		t.Log("no Bun build for this platform: the loader was compared on Node only")
	}
}

func compareJSHost(t *testing.T, runtime string) {
	root, _ := filepath.Abs("../testdata/conformance")
	cmd := exec.Command(runtime, "../adapters/core/conformance/raw.mjs", root, "plugin.wasm")
	cmd.Env = append(os.Environ(), "NODE_NO_WARNINGS=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("JS host: %v\n%s", err, stderr.Bytes())
	}
	js := map[string]struct{ Out, Err string }{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var line struct{ Name, Out, Err string }
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("JS host line %q: %v", sc.Text(), err)
		}
		js[line.Name] = struct{ Out, Err string }{line.Out, line.Err}
	}
	cases, err := conformance.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(js) != len(cases) {
		t.Errorf("JS host ran %d cases, Go host %d", len(js), len(cases))
	}
	wasm := loadWasm(t)
	for _, c := range cases {
		in, _ := json.Marshal(c.Request)
		goOut, goErr := wasm.CallRaw(context.Background(), abi.ExportHandle, in)
		got, ok := js[c.Name]
		switch {
		case !ok:
			t.Errorf("%s: not run by the JS host", c.Name)
		case goErr != nil:
			if got.Err == "" {
				t.Errorf("%s: Go host failed (%v), JS host did not", c.Name, goErr)
			}
		case got.Err != "":
			t.Errorf("%s: JS host failed: %s", c.Name, got.Err)
		case got.Out != string(goOut):
			t.Errorf("%s: hosts differ:\n%s", c.Name, firstDiff(goOut, []byte(got.Out)))
		}
	}
}

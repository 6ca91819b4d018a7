package adapters

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenCodeBundleLoads: the bundle is one module whose only export is
// the plugin, and Node can import it (with @extism/extism resolvable).
func TestOpenCodeBundleLoads(t *testing.T) {
	b, err := OpenCodeBundle("/x/plugin.wasm", "/x/ctxhook", "opencode")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if strings.Count(s, "\nexport ") != 1 || !strings.Contains(s, "export const CtxhookPlugin") {
		t.Fatalf("bundle exports something besides the plugin")
	}
	if !strings.Contains(s, `const INSTALLED = {"ctxhook":"/x/ctxhook","wasm":"/x/plugin.wasm"};`) || strings.Contains(s, `from "@ctxhook/core"`) {
		t.Fatalf("paths not filled in or core not inlined")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is needed (Node 20+)")
	}
	// Place it where @extism/extism resolves: next to adapters/node_modules.
	dir, err := os.MkdirTemp(".", "bundle-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "ctxhook.mjs")
	os.WriteFile(file, b, 0o644)
	cmd := exec.Command("node", "--input-type=module", "-e",
		`const m = await import(process.argv[1]); console.log(Object.keys(m).join(","), typeof m.CtxhookPlugin)`, "./"+file)
	cmd.Env = append(os.Environ(), "NODE_NO_WARNINGS=1")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "CtxhookPlugin function" {
		t.Fatalf("node import: %v\n%s", err, out)
	}
}

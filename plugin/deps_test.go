package plugin_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestGuestDependencies keeps plugin.wasm small and its decisions
// auditable: the guest may import only the standard library, go-pdk and the
// plugin's own packages. A new dependency must be argued in RATIONALE.md and
// added here.
func TestGuestDependencies(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./guest")
	cmd.Env = append(cmd.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := []string{"github.com/ctxhook/ctxhook/plugin/", "github.com/extism/go-pdk"}
	n := 0
	for _, pkg := range strings.Fields(string(out)) {
		first := strings.SplitN(pkg, "/", 2)[0]
		if !strings.Contains(first, ".") {
			continue // standard library
		}
		n++
		ok := false
		for _, a := range allowed {
			if strings.HasPrefix(pkg, a) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("plugin/guest depends on %s", pkg)
		}
		if strings.HasPrefix(pkg, "github.com/ctxhook/ctxhook/host") {
			t.Errorf("the plugin must not import host code: %s", pkg)
		}
	}
	if n == 0 {
		t.Fatal("go list found no non-standard packages; the check proved nothing")
	}
}

package engine

import (
	"encoding/json"
	"os"
	"testing"
)

// TestDialectsMatchRegistry: the table of dialects and the registry
// (harness-configs/harnesses.json) name the same parent for every
// harness, and every harness the registry lists has a dialect here.
func TestDialectsMatchRegistry(t *testing.T) {
	b, err := os.ReadFile("../../../harness-configs/harnesses.json")
	if err != nil {
		t.Fatal(err)
	}
	var reg []struct{ Name, Kind, Dialect string }
	if err := json.Unmarshal(b, &reg); err != nil {
		t.Fatal(err)
	}
	for _, h := range reg {
		if h.Kind == "library" {
			continue // the user's program, speaking its dialect's hooks
		}
		if h.Kind == "proxy-only" && h.Dialect != "" {
			continue // a client the plugin meets only as the proxy's requests
		}
		d, ok := dialects[h.Name]
		if !ok {
			t.Errorf("%s: no dialect in the table", h.Name)
			continue
		}
		if d.parent != h.Dialect {
			t.Errorf("%s: the table's parent %q, the registry's %q", h.Name, d.parent, h.Dialect)
		}
	}
}

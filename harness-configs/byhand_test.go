package harnessconfigs

import (
	"slices"
	"testing"
)

// TestByHandNotInstalled: a harness wired by hand is one `ctxhook hook`
// takes but install, uninstall and doctor do not (its kind's installer
// would write another harness's adapter), and its guide says how.
func TestByHandNotInstalled(t *testing.T) {
	n := 0
	for _, h := range All() {
		if !h.ByHand {
			continue
		}
		n++
		if _, ok := Lookup(h.Name); ok || slices.ContainsFunc(Installable(), func(i Harness) bool { return i.Name == h.Name }) {
			t.Errorf("%s is wired by hand, but install takes it", h.Name)
		}
		if (h.Kind == KindExtension || h.Kind == KindHookFile) && !slices.Contains(HookNames(), h.Name) {
			t.Errorf("%s: ctxhook hook does not take it", h.Name)
		}
	}
	if n == 0 {
		t.Skip("no harness is wired by hand")
	}
}

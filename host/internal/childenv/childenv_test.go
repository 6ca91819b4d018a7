package childenv

import (
	"slices"
	"testing"
)

func TestOverlay(t *testing.T) {
	vars := map[string]string{"HOME": "/test/home", "CTXHOOK_HOME": "/test/ctxhook", "UNLISTED": "x", "KEEP": ""}
	get := func(k string) string { return vars[k] }
	base := []string{"HOME=/root", "PATH=/bin", "KEEP=base", "A=b=c"}
	got := Overlay(base, get)
	want := []string{"HOME=/test/home", "PATH=/bin", "KEEP=base", "A=b=c", "CTXHOOK_HOME=/test/ctxhook"}
	if !slices.Equal(got, want) {
		t.Errorf("Overlay = %q\nwant      %q", got, want)
	}
	// A variable getenv has but the process lacks, and not one of Keys,
	// cannot be found (a lookup lists nothing): it is not invented.
	if slices.Contains(got, "UNLISTED=x") {
		t.Errorf("an unlisted variable was added: %q", got)
	}
}

// TestOverlayLastWins: base may name a variable twice (the last one is
// the process's value); each entry takes getenv's.
func TestOverlayLastWins(t *testing.T) {
	got := Overlay([]string{"CTXHOOK_HOME=/a", "CTXHOOK_HOME=/b"}, func(k string) string {
		if k == "CTXHOOK_HOME" {
			return "/c"
		}
		return ""
	})
	if !slices.Equal(got, []string{"CTXHOOK_HOME=/c", "CTXHOOK_HOME=/c"}) {
		t.Errorf("Overlay = %q", got)
	}
}

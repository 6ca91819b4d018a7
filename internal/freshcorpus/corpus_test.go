package freshcorpus

import (
	"strings"
	"testing"
)

// TestCasesWellFormed checks what the recall figures rest on: every
// needle is in its own text, a seed always draws the same text, every
// format has every form it claims, and format names are unique.
func TestCasesWellFormed(t *testing.T) {
	names := map[string]bool{}
	for _, f := range Formats() {
		if names[f.Name] {
			t.Errorf("format %s listed twice", f.Name)
		}
		names[f.Name] = true
	}
	if len(names) < 40 {
		t.Errorf("%d formats, want at least 40", len(names))
	}
	for _, seed := range Seeds {
		a, b := Cases(seed), Cases(seed)
		for i, c := range a {
			if err := c.Check(); err != nil {
				t.Error(err)
			}
			if c.Text != b[i].Text {
				t.Fatalf("seed %d case %d differs between two draws", seed, i)
			}
			if c.Leaked(c.Text) == "" {
				t.Errorf("%s/%s seed %d: Leaked finds nothing in the unredacted text", c.Format, c.Form, seed)
			}
		}
	}
}

// TestCleanHoldsNoCaseSecret checks that no clean category happens to
// draw a case's secret, so a redaction there is an over-redaction.
func TestCleanHoldsNoCaseSecret(t *testing.T) {
	var clean strings.Builder
	for _, c := range Categories() {
		for _, s := range CleanText(c, 1, 20000) {
			clean.WriteString(s)
		}
	}
	for _, c := range Cases(Seeds[0]) {
		if run := c.Leaked(clean.String()); run != "" && len(run) >= Window {
			t.Errorf("clean text holds %q of %s", run, c.Format)
		}
	}
}

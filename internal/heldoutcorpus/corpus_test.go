package heldoutcorpus

import (
	"reflect"
	"strings"
	"testing"
)

// TestCases checks the corpus measures something: enough formats that
// nothing else covers, every kind and form present, every secret in its
// own text, and one seed always the same text.
func TestCases(t *testing.T) {
	seen := map[string]bool{}
	pure := 0
	for _, f := range Formats() {
		if seen[f.Name] {
			t.Errorf("format %s twice", f.Name)
		}
		seen[f.Name] = true
		if f.Overlap == "" {
			pure++
		}
	}
	if pure < 44 {
		t.Errorf("%d formats that nothing else covers, want at least 44", pure)
	}
	forms, kinds := map[Form]int{}, map[Kind]int{}
	for _, seed := range Seeds {
		cs := Cases(seed)
		for _, c := range cs {
			if err := c.Check(); err != nil {
				t.Error(err)
			}
			if c.Leaked(c.Text) == "" {
				t.Errorf("%s/%s seed %d: the unredacted text does not count as a leak", c.Format, c.Variant, seed)
			}
			forms[c.Form]++
			kinds[c.Kind]++
		}
	}
	for _, f := range Forms {
		if forms[f] == 0 {
			t.Errorf("no case in form %s", f)
		}
	}
	for _, k := range Kinds {
		if kinds[k] == 0 {
			t.Errorf("no case of kind %s", k)
		}
	}
	if !reflect.DeepEqual(Cases(3), Cases(3)) || reflect.DeepEqual(Cases(3), Cases(4)) {
		t.Error("Cases is not a function of its seed")
	}
}

// TestLeaked pins the rule: a case is caught only when no Window-byte
// run of its secret, raw or encoded, is left.
func TestLeaked(t *testing.T) {
	sec := "ab+cd/ef=gh0123456789XYZ"
	c := Case{Secrets: []string{sec}, Text: "k=" + sec}
	for _, tc := range []struct {
		name, out string
		leak      bool
	}{
		{"gone", "k=[REDACTED]", false},
		{"whole", "k=" + sec, true},
		{"tail", "k=[REDACTED]" + sec[len(sec)-Window:], true},
		{"short tail", "k=[REDACTED]" + sec[len(sec)-Window+1:], false},
		{"percent-encoded", "k=ab%2Bcd%2Fef%3Dgh[REDACTED]", true},
		{"json-escaped twice", `{"t": "{\\\"k\\\": \\\"ab+cd/ef=gh01[REDACTED]\\\"}"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Leaked(tc.out) != ""; got != tc.leak {
				t.Errorf("Leaked(%q) = %v, want %v", tc.out, got, tc.leak)
			}
		})
	}
	short := Case{Secrets: []string{"hunter2xyz"}}
	if short.Leaked("pw=hunter2xy") != "" || short.Leaked("pw=hunter2xyz") == "" {
		t.Error("a secret shorter than Window must be gone whole, and only then")
	}
}

func TestIdentifiersAndClean(t *testing.T) {
	n := 0
	for _, seed := range Seeds {
		for _, id := range Identifiers(seed) {
			if !strings.Contains(id.Text, id.Item) && !strings.Contains(id.Text, jsonEsc(id.Item)) {
				t.Errorf("%s: %q not in %q", id.Kind, id.Item, id.Text)
			}
			n++
		}
	}
	if n < 2000 {
		t.Errorf("%d identifiers, want at least 2000", n)
	}
	size := 0
	for _, d := range Clean(1<<20, 1) {
		size += len(d)
	}
	if size < 1<<20 {
		t.Errorf("Clean gave %d bytes, want %d", size, 1<<20)
	}
	if !reflect.DeepEqual(Clean(1<<16, 2), Clean(1<<16, 2)) {
		t.Error("Clean is not a function of its seed")
	}
}

package redact_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/internal/heldoutcorpus"
	"github.com/ctxhook/ctxhook/plugin/internal/redact"
)

// The held-out corpus (internal/heldoutcorpus) was written before the
// detector was tuned on it. Its goals: recall of at least
// heldoutRecallGoal in every form, no redaction of an identifier, at most
// heldoutFPGoal false positives per 10 MB of clean text. Until the
// detector meets them the tests only report; the commit that meets them
// sets heldoutEnforced, and from then on a regression fails.
const (
	heldoutRecallGoal = 0.99
	heldoutFPGoal     = 1.0
	heldoutEnforced   = false
)

type tally struct{ caught, total int }

func (t *tally) rate() float64 { return float64(t.caught) / float64(t.total) }

func (t *tally) String() string {
	return fmt.Sprintf("%.1f%% (%d/%d)", 100*t.rate(), t.caught, t.total)
}

func count[K comparable](m map[K]*tally, k K, caught bool) {
	if m[k] == nil {
		m[k] = &tally{}
	}
	m[k].total++
	if caught {
		m[k].caught++
	}
}

// TestHeldoutRecall redacts every case of the held-out corpus over its
// seeds and reports recall per form, per kind and per format, and every
// miss as (format, form/variant, seeds). A case is caught only if no
// 12-byte run of its secret, raw or as encoded in the text, is left.
func TestHeldoutRecall(t *testing.T) {
	r := redact.New()
	byForm, byKind, byFormat := map[heldoutcorpus.Form]*tally{}, map[heldoutcorpus.Kind]*tally{}, map[string]*tally{}
	all := &tally{}
	missedSeeds := map[string][]string{}
	for _, seed := range heldoutcorpus.Seeds {
		for _, c := range heldoutcorpus.Cases(seed) {
			if err := c.Check(); err != nil {
				t.Fatal(err)
			}
			out, _ := r.String(c.Text)
			caught := c.Leaked(out) == ""
			count(byForm, c.Form, caught)
			count(byKind, c.Kind, caught)
			count(byFormat, c.Format, caught)
			all.total++
			if caught {
				all.caught++
			} else {
				k := c.Format + " " + string(c.Form) + "/" + c.Variant
				missedSeeds[k] = append(missedSeeds[k], fmt.Sprint(seed))
			}
		}
	}
	formats := heldoutcorpus.Formats()
	unnamed := 0
	for _, f := range formats {
		if f.Overlap == "" {
			unnamed++
		}
	}
	if all.total == 0 || unnamed < 44 || len(byFormat) != len(formats) {
		t.Fatalf("held-out corpus broken: %d cases, %d formats (%d unnamed), %d formats with cases", all.total, len(formats), unnamed, len(byFormat))
	}
	t.Logf("held-out recall: %s over %d formats (%d no rule or earlier corpus names), %d seeds", all, len(formats), unnamed, len(heldoutcorpus.Seeds))
	var fs []string
	for _, f := range heldoutcorpus.Forms {
		fs = append(fs, string(f)+" "+byForm[f].String())
	}
	t.Logf("held-out recall by form: %s", strings.Join(fs, ", "))
	var ks []string
	for _, k := range heldoutcorpus.Kinds {
		ks = append(ks, string(k)+" "+byKind[k].String())
	}
	t.Logf("held-out recall by kind: %s", strings.Join(ks, ", "))
	t.Logf("held-out misses by format: %s", missesByFormat(byFormat))
	keys := make([]string, 0, len(missedSeeds))
	for k := range missedSeeds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("missed: %s seeds %s", k, strings.Join(missedSeeds[k], ","))
	}
	if !heldoutEnforced {
		return
	}
	for _, f := range heldoutcorpus.Forms {
		if byForm[f].rate() < heldoutRecallGoal {
			t.Errorf("recall in form %s is %s, want at least %.0f%%", f, byForm[f], 100*heldoutRecallGoal)
		}
	}
}

// missesByFormat lists the formats with a miss, most misses first.
func missesByFormat(m map[string]*tally) string {
	type row struct {
		name string
		t    *tally
	}
	var rows []row
	for k, v := range m {
		if v.caught < v.total {
			rows = append(rows, row{k, v})
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		mi, mj := rows[i].t.total-rows[i].t.caught, rows[j].t.total-rows[j].t.caught
		if mi != mj {
			return mi > mj
		}
		return rows[i].name < rows[j].name
	})
	if len(rows) == 0 {
		return "none"
	}
	var s []string
	for _, r := range rows {
		s = append(s, fmt.Sprintf("%s %d/%d", r.name, r.t.total-r.t.caught, r.t.total))
	}
	return strings.Join(s, ", ")
}

// spansOf shows what a redaction took from s, for the log.
func spansOf(r *redact.Redactor, s string) string {
	spans, _ := r.Spans(s)
	var out []string
	for _, sp := range spans {
		out = append(out, fmt.Sprintf("%q", s[sp.Start:sp.End]))
	}
	return strings.Join(out, " ")
}

// TestHeldoutIdentifiers redacts the identifier corpus, which must come
// out unchanged, and reports every redaction in it.
func TestHeldoutIdentifiers(t *testing.T) {
	r := redact.New()
	items, redactions := 0, 0
	byKind := map[string]int{}
	var hits []string
	for _, seed := range heldoutcorpus.Seeds {
		for _, id := range heldoutcorpus.Identifiers(seed) {
			items++
			out, n := r.String(id.Text)
			if n == 0 && out != id.Text {
				t.Fatalf("%s: text changed with no redaction counted: %q -> %q", id.Kind, id.Text, out)
			}
			if n == 0 {
				continue
			}
			redactions += n
			byKind[id.Kind] += n
			hits = append(hits, fmt.Sprintf("redacted identifier: %s %q took %s", id.Kind, id.Item, spansOf(r, id.Text)))
		}
	}
	if items < 2000 {
		t.Fatalf("held-out identifier corpus broken: %d items, want at least 2000", items)
	}
	kinds := make([]string, 0, len(byKind))
	for k, n := range byKind {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	t.Logf("held-out identifiers: %d redactions in %d items of %d kinds (goal 0); by kind: %s", redactions, items, heldoutcorpus.IdentKinds(), strings.Join(kinds, ", "))
	for _, h := range hits {
		t.Log(h)
	}
	if heldoutEnforced && redactions > 0 {
		t.Errorf("%d identifiers redacted, want none", redactions)
	}
}

// TestHeldoutFalsePositives redacts about 10 MB of clean text (1 MB from
// each seed) and reports redactions per 10 MB, with what was taken.
func TestHeldoutFalsePositives(t *testing.T) {
	const perSeed, tenMB = 1 << 20, 10 << 20
	r := redact.New()
	size, redactions := 0, 0
	var hits []string
	for _, seed := range heldoutcorpus.Seeds {
		for _, doc := range heldoutcorpus.Clean(perSeed, seed) {
			size += len(doc)
			_, n := r.String(doc)
			if n > 0 {
				redactions += n
				hits = append(hits, fmt.Sprintf("false positive (seed %d): %s", seed, spansOf(r, doc)))
			}
		}
	}
	if size < tenMB {
		t.Fatalf("held-out clean text broken: %d bytes, want at least %d", size, tenMB)
	}
	per := float64(redactions) * tenMB / float64(size)
	t.Logf("held-out false positives: %d in %.1f MB of clean text, %.1f per 10 MB (goal at most %.0f)", redactions, float64(size)/(1<<20), per, heldoutFPGoal)
	for _, h := range hits {
		t.Log(h)
	}
	if heldoutEnforced && per > heldoutFPGoal {
		t.Errorf("%.1f false positives per 10 MB, want at most %.0f", per, heldoutFPGoal)
	}
}

package redact_test

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/internal/freshcorpus"
	"github.com/ctxhook/ctxhook/plugin/internal/redact"
)

// The fresh corpus (internal/freshcorpus) was written without reading the
// detector and holds no format of the earlier corpora or of gitleaks. The
// tests here only report: recall per form, kind and format, and
// redactions per category of clean text, so that a detector's
// generalisation is measured on data it was never tuned on.

type freshTally struct{ hit, total int }

func (t *freshTally) String() string {
	return fmt.Sprintf("%5.1f%% (%d/%d)", 100*float64(t.hit)/float64(max(t.total, 1)), t.hit, t.total)
}

func freshCount[K comparable](m map[K]*freshTally, k K, hit bool) {
	if m[k] == nil {
		m[k] = &freshTally{}
	}
	m[k].total++
	if hit {
		m[k].hit++
	}
}

// TestFreshRecall redacts every case over the corpus' seeds. A case is
// caught only if no 12-byte run of its secret, as written, is left.
func TestFreshRecall(t *testing.T) {
	r := redact.New()
	byForm, byKind, byFormat := map[freshcorpus.Form]*freshTally{}, map[freshcorpus.Kind]*freshTally{}, map[string]*freshTally{}
	byFormatForm, byVariant := map[string]*freshTally{}, map[string]*freshTally{}
	all := &freshTally{}
	example := map[string]string{}
	for _, seed := range freshcorpus.Seeds {
		for _, c := range freshcorpus.Cases(seed) {
			if err := c.Check(); err != nil {
				t.Fatal(err)
			}
			out, _ := r.String(c.Text)
			caught := c.Leaked(out) == ""
			freshCount(byForm, c.Form, caught)
			freshCount(byKind, c.Kind, caught)
			freshCount(byFormat, c.Format, caught)
			freshCount(byFormatForm, c.Format+" "+string(c.Form), caught)
			freshCount(byVariant, string(c.Form)+"/"+c.Variant, caught)
			freshCount(map[string]*freshTally{"": all}, "", caught)
			if !caught && example[c.Format] == "" {
				example[c.Format] = fmt.Sprintf("[%s/%s seed %d] %q -> %q", c.Form, c.Variant, c.Seed, clip(c.Text), clip(out))
			}
		}
	}
	t.Logf("fresh recall: %s over %d formats, %d seeds", all, len(freshcorpus.Formats()), len(freshcorpus.Seeds))
	for _, f := range freshcorpus.Forms {
		t.Logf("  form %-8s %s", f, byForm[f])
	}
	variants := make([]string, 0, len(byVariant))
	for v := range byVariant {
		variants = append(variants, v)
	}
	sort.Strings(variants)
	for _, v := range variants {
		t.Logf("  variant %-16s %s", v, byVariant[v])
	}
	for _, k := range freshcorpus.Kinds {
		t.Logf("  kind %-15s %s", k, byKind[k])
	}
	names := make([]string, 0, len(byFormat))
	for n := range byFormat {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		return byFormat[names[i]].hit*1000/byFormat[names[i]].total < byFormat[names[j]].hit*1000/byFormat[names[j]].total
	})
	for _, n := range names {
		if byFormat[n].hit == byFormat[n].total {
			continue
		}
		var forms []string
		for _, f := range freshcorpus.Forms {
			if ff := byFormatForm[n+" "+string(f)]; ff != nil && ff.hit < ff.total {
				forms = append(forms, fmt.Sprintf("%s %d/%d", f, ff.hit, ff.total))
			}
		}
		t.Logf("  miss %-30s %s [%s]\n      e.g. %s", n, byFormat[n], strings.Join(forms, ", "), example[n])
	}
}

func clip(s string) string {
	if len(s) > 240 {
		return s[:240] + "…"
	}
	return s
}

// freshCleanBytes is the size of the clean corpus: FRESH_CLEAN_MB, 10 MB
// by default, 1 MB under -short.
func freshCleanBytes() int {
	mb := 10.0
	if testing.Short() {
		mb = 1
	}
	if v, err := strconv.ParseFloat(os.Getenv("FRESH_CLEAN_MB"), 64); err == nil {
		mb = v
	}
	return int(mb * 1e6)
}

// TestFreshClean redacts clean text of every category and reports the
// redactions per category and per 10 MB, with examples.
//
// It reads 10 MB through the whole pipeline (about 10 s of CPU here), so
// make test leaves it to make bench-secrets, which sets
// CTXHOOK_BENCH_SECRETS.
func TestFreshClean(t *testing.T) {
	if os.Getenv("CTXHOOK_BENCH_SECRETS") == "" {
		t.Skip("report-only and slow: make bench-secrets runs it")
	}
	r := redact.New()
	cats := freshcorpus.Categories()
	per := freshCleanBytes() / len(cats)
	totalN, totalBytes, decidedN, snippetsHit := 0, 0, 0, 0
	for _, c := range cats {
		n, bytes, hit := 0, 0, 0
		var ex []string
		for _, s := range freshcorpus.CleanText(c, 1, per) {
			out, k := r.String(s)
			bytes += len(s)
			if k == 0 {
				continue
			}
			n += k
			hit++
			if len(ex) < 2 {
				ex = append(ex, fmt.Sprintf("%q -> %q", clip(s), clip(out)))
			}
		}
		totalBytes += bytes
		if c.Decided {
			decidedN += n
		} else {
			totalN += n
			snippetsHit += hit
		}
		mark := ""
		if c.Decided {
			mark = " (judgement call)"
		}
		t.Logf("  clean %-24s %6d redactions in %4d snippets, %8.1f per 10 MB%s", c.Name, n, hit, float64(n)*1e7/float64(bytes), mark)
		for _, e := range ex {
			t.Logf("      e.g. %s", e)
		}
	}
	mixed := freshcorpus.Mixed(1, freshCleanBytes())
	_, k := r.String(mixed)
	t.Logf("fresh clean, all categories interleaved: %d redactions in %.1f MB", k, float64(len(mixed))/1e6)
	t.Logf("fresh clean: %d redactions (%d snippets) in %.1f MB, %.1f per 10 MB; judgement-call categories: %d more", totalN, snippetsHit, float64(totalBytes)/1e6, float64(totalN)*1e7/float64(totalBytes), decidedN)
}

// BenchmarkFreshClean times the redactor on mixed clean text.
func BenchmarkFreshClean(b *testing.B) {
	for _, size := range []int{1 << 20, 16 << 20} {
		text := freshcorpus.Mixed(7, size)
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			r := redact.New()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				r.String(text)
			}
		})
	}
}

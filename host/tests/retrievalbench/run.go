package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/internal/retrievalcorpus"
)

// result is one hit: the event and the snippet shown for it.
type result struct {
	id      int64
	snippet string
}

// system is a search to measure: the top 10 for a query.
type system struct {
	name   string
	search func(query string) ([]result, error)
}

// outcome is how a system answered one question.
type outcome struct {
	q       retrievalcorpus.Question
	rank    int  // 1-based rank by which every fact's records were found; 0: not in the top 10
	snippet bool // each fact shown by the snippet of a hit holding it
	none    bool // no result at all
	latency time.Duration
	top     []string // the keys of the first hits
	// unshown are the facts found but not shown: the value, and the
	// snippet of the first hit holding it.
	unshown [][2]string
}

type report struct {
	outcomes map[string][]outcome // by system
}

// run asks every question of every system, the systems taking turns.
func run(set retrievalcorpus.QuestionSet, ing *ingested, systems []system) report {
	rep := report{outcomes: map[string][]outcome{}}
	for _, q := range set.Questions {
		for _, s := range systems {
			start := time.Now()
			hits, err := s.search(q.Query)
			took := time.Since(start)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %s: %v\n", s.name, q.ID, err)
			}
			o := judge(q, hits, ing.keys)
			o.latency = took
			rep.outcomes[s.name] = append(rep.outcomes[s.name], o)
		}
	}
	return rep
}

// judge scores hits against q's expected records.
func judge(q retrievalcorpus.Question, hits []result, keys map[int64]string) outcome {
	o := outcome{q: q, none: len(hits) == 0, snippet: true}
	for i, h := range hits {
		if i < 3 {
			o.top = append(o.top, keys[h.id])
		}
	}
	for _, e := range q.Expect {
		found, shown := 0, false
		for i, h := range hits {
			if !slices.Contains(e.Keys, keys[h.id]) {
				continue
			}
			if found == 0 {
				found = i + 1
			}
			shown = shown || strings.Contains(norm(h.snippet), norm(e.Value))
		}
		if found > 0 && !shown {
			o.unshown = append(o.unshown, [2]string{e.Value, hits[found-1].snippet})
		}
		if found == 0 {
			o.rank = -1
		} else if o.rank >= 0 {
			o.rank = max(o.rank, found)
		}
		o.snippet = o.snippet && shown
	}
	o.rank = max(o.rank, 0)
	return o
}

// norm lower-cases s and collapses its white space.
func norm(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// metrics are one system's figures over a set of questions.
type metrics struct {
	N       int     `json:"n"`
	Hit1    float64 `json:"hit_at_1"`
	Hit5    float64 `json:"hit_at_5"`
	Hit10   float64 `json:"hit_at_10"`
	MRR     float64 `json:"mrr"`
	Snippet float64 `json:"snippet_holds_fact"`
	// SnippetOfHits is Snippet among the questions whose every fact was
	// found (in the results at all): how good the snippets are, apart
	// from how good the ranking is.
	SnippetOfHits float64 `json:"snippet_holds_fact_of_hits"`
	None          float64 `json:"no_result"`
	P50MS         float64 `json:"p50_ms"`
	P99MS         float64 `json:"p99_ms"`
}

func measure(os []outcome) metrics {
	m := metrics{N: len(os)}
	var lat []time.Duration
	for _, o := range os {
		if o.rank == 1 {
			m.Hit1++
		}
		if o.rank >= 1 && o.rank <= 5 {
			m.Hit5++
		}
		if o.rank >= 1 {
			m.Hit10++
			m.MRR += 1 / float64(o.rank)
		}
		if o.snippet {
			m.Snippet++
		}
		if o.none {
			m.None++
		}
		lat = append(lat, o.latency)
	}
	if m.N == 0 {
		return m
	}
	n := float64(m.N)
	if m.Hit10 > 0 {
		m.SnippetOfHits = m.Snippet / m.Hit10 // a shown fact is a found one
	}
	m.Hit1, m.Hit5, m.Hit10, m.MRR, m.Snippet, m.None = m.Hit1/n, m.Hit5/n, m.Hit10/n, m.MRR/n, m.Snippet/n, m.None/n
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	m.P50MS, m.P99MS = ms(lat[len(lat)/2]), ms(lat[min(len(lat)-1, len(lat)*99/100)])
	return m
}

// byClass is a system's outcomes of class ("": all).
func (r report) byClass(sys, class string) []outcome {
	var out []outcome
	for _, o := range r.outcomes[sys] {
		if class == "" || o.q.Class == class {
			out = append(out, o)
		}
	}
	return out
}

// summary is every system's metrics by class, and overall ("all").
func (r report) summary() map[string]map[string]metrics {
	out := map[string]map[string]metrics{}
	for sys := range r.outcomes {
		out[sys] = map[string]metrics{"all": measure(r.byClass(sys, ""))}
		for _, c := range retrievalcorpus.Classes {
			out[sys][c] = measure(r.byClass(sys, c))
		}
	}
	return out
}

func printTable(w io.Writer, r report, systems []system) {
	fmt.Fprintln(w, "| class | n | search | hit@1 | hit@5 | hit@10 | MRR | snippet holds fact | of hits | no result | p50 ms | p99 ms |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, c := range append(slices.Clone(retrievalcorpus.Classes), "") {
		for _, s := range systems {
			m := measure(r.byClass(s.name, c))
			label := c
			if c == "" {
				label = "**all**"
			}
			fmt.Fprintf(w, "| %s | %d | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f |\n",
				label, m.N, s.name, m.Hit1, m.Hit5, m.Hit10, m.MRR, m.Snippet, m.SnippetOfHits, m.None, m.P50MS, m.P99MS)
		}
	}
}

// printMisses lists the questions ctxhook does not answer in its top 10.
func printMisses(w io.Writer, r report) {
	fmt.Fprintln(w, "\nctxhook misses at 10:")
	for _, o := range r.outcomes["ctxhook"] {
		if o.rank == 0 {
			fmt.Fprintf(w, "  %s %q: top %v\n", o.q.ID, o.q.Query, o.top)
		}
	}
	fmt.Fprintln(w, "\nctxhook snippets not showing a fact found:")
	for _, o := range r.outcomes["ctxhook"] {
		for _, u := range o.unshown {
			fmt.Fprintf(w, "  %s %q: %q not in %q\n", o.q.ID, o.q.Query, u[0], u[1])
		}
	}
}

// Command retrievalbench measures how well ctxhook finds what it stored:
// it records the seeded corpus of internal/retrievalcorpus through the
// real hook path (Claude Code PostToolUse payloads into hook.Engine, the
// plugin's redaction and rendering, the store's write) in a temporary
// CTXHOOK_HOME, asks each frozen question (testdata/retrieval) through
// ctxhook mcp's search tool, and does the same with a plain FTS5 BM25
// baseline over the same stored texts. It reports hit@1/5/10, MRR,
// whether the snippet shows the fact, empty answers and latency, per
// class. `make bench` runs it; docs/search.md has today's figures.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxhook/ctxhook/internal/retrievalcorpus"
	"github.com/ctxhook/ctxhook/internal/testcache"
)

func main() {
	questions := flag.String("questions", retrievalcorpusFile, "the frozen question set")
	keep := flag.String("home", "", "CTXHOOK_HOME to build the store in and keep (default: a temporary one, removed)")
	again := flag.Bool("reuse", false, "with -home: search the store an earlier run built there instead of building it again")
	verbose := flag.Bool("v", false, "list every question ctxhook misses at 10, and every fact found whose snippet does not show it")
	jsonOut := flag.String("json", "", "also write the figures as JSON to this file")
	flag.Parse()
	set, err := loadQuestions(*questions)
	check(err)
	home := *keep
	if home == "" {
		home, err = os.MkdirTemp("", "retrievalbench")
		check(err)
		defer os.RemoveAll(home)
	}
	start := time.Now()
	corpus := retrievalcorpus.Generate(set.Seed)
	if len(corpus.Records) != set.Records {
		fail("the question set was made from %d records, seed %d gives %d: the generator changed", set.Records, set.Seed, len(corpus.Records))
	}
	fmt.Fprintf(os.Stderr, "corpus: %d records, %.1f MiB, made in %s\n", len(corpus.Records), float64(corpusBytes(corpus))/(1<<20), since(start))

	ctx := context.Background()
	start = time.Now()
	var ing *ingested
	if *again && *keep != "" {
		ing, err = reuse(home, corpus)
	} else {
		ing, err = ingest(ctx, home, testcache.Dir("retrievalbench"), corpus)
	}
	check(err)
	fmt.Fprintf(os.Stderr, "store ready in %s: %d events, %d facts lost to redaction\n", since(start), len(ing.keys), ing.lost)

	start = time.Now()
	var base *baseline
	if *again {
		// The stored texts are those the earlier run indexed.
		base, err = openBaseline(filepath.Join(home, "baseline.db"))
	}
	if base == nil {
		os.Remove(filepath.Join(home, "baseline.db"))
		base, err = newBaseline(filepath.Join(home, "baseline.db"), ing)
	}
	check(err)
	defer base.close()
	fmt.Fprintf(os.Stderr, "baseline FTS5 index built in %s\n", since(start))

	search, err := newCtxhookSearch(ctx, ing.db)
	check(err)
	defer search.close()
	systems := []system{{"ctxhook", search.search}, {"FTS5 BM25", base.search}}
	report := run(set, ing, systems)
	printTable(os.Stdout, report, systems)
	if *verbose {
		printMisses(os.Stdout, report)
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(report.summary(), "", "  ")
		check(os.WriteFile(*jsonOut, append(b, '\n'), 0o644))
	}
}

const retrievalcorpusFile = "testdata/retrieval/questions.json"

func loadQuestions(path string) (retrievalcorpus.QuestionSet, error) {
	var set retrievalcorpus.QuestionSet
	b, err := os.ReadFile(path)
	if err != nil {
		return set, err
	}
	return set, json.Unmarshal(b, &set)
}

func corpusBytes(c *retrievalcorpus.Corpus) int {
	n := 0
	for _, r := range c.Records {
		n += len(r.Result)
	}
	return n
}

func since(t time.Time) string { return time.Since(t).Round(100 * time.Millisecond).String() }

func check(err error) {
	if err != nil {
		fail("%v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "retrievalbench: "+format+"\n", args...)
	os.Exit(1)
}

package retrievalcorpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// QuestionsFile is the frozen question set, relative to the module root.
const QuestionsFile = "testdata/retrieval/questions.json"

var freeze = flag.Bool("freeze", false, "write "+QuestionsFile+" when it does not exist yet (never over it)")

func questionsPath() string { return filepath.Join("..", "..", QuestionsFile) }

// seeded is the corpus of Seed and its questions, made once for the tests.
var seeded = sync.OnceValues(func() (*Corpus, QuestionSet) {
	c := Generate(Seed)
	return c, c.Questions()
})

// TestQuestionsFrozen: the frozen question set is what the generator
// and Seed give. The file is never written to suit the ranking: a change
// of generator that changes it is a new benchmark (a new file), and its
// figures are not comparable with the old.
func TestQuestionsFrozen(t *testing.T) {
	_, set := seeded()
	want, err := EncodeQuestions(set)
	if err != nil {
		t.Fatal(err)
	}
	path := questionsPath()
	got, err := os.ReadFile(path)
	if os.IsNotExist(err) && *freeze {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what the generator gives for seed %d: the generator changed. Keep the frozen file; "+
			"a new generator needs a new question file and a new baseline", path, Seed)
	}
}

// TestDeterministic: the same seed gives the same bytes, another seed
// other bytes.
func TestDeterministic(t *testing.T) {
	sum := func(c *Corpus) [32]byte {
		h := sha256.New()
		for _, r := range c.Records {
			json.NewEncoder(h).Encode(r)
		}
		var s [32]byte
		copy(s[:], h.Sum(nil))
		return s
	}
	c, _ := seeded()
	if sum(c) != sum(Generate(Seed)) {
		t.Fatal("one seed gave two corpora")
	}
	if sum(c) == sum(Generate(Seed+1)) {
		t.Fatal("two seeds gave one corpus")
	}
}

// TestShape: the corpus is what the benchmark promises: ~1,500 records
// of every kind, 400 B to about 5 MiB, each fact in its record's text,
// and every question's records holding its facts.
func TestShape(t *testing.T) {
	c, set := seeded()
	if n := len(c.Records); n < 1400 || n > 1800 {
		t.Errorf("%d records", n)
	}
	kinds := map[string]int{}
	lo, hi := 1<<30, 0
	for _, r := range c.Records {
		kinds[r.Kind]++
		lo, hi = min(lo, len(r.Result)), max(hi, len(r.Result))
		text := strings.ToLower(r.Text())
		for _, f := range r.Facts {
			if !strings.Contains(text, strings.ToLower(f.Value)) {
				t.Errorf("%s: fact %s=%q not in its text", r.Key, f.Name, f.Value)
			}
		}
		if !json.Valid(r.Result) || !json.Valid(r.Args) {
			t.Errorf("%s: invalid JSON", r.Key)
		}
	}
	for _, k := range []string{"jira-issue", "jira-search", "sentry-issue", "loki", "github-pr", "docs", "runbook", "incident", "grafana"} {
		if kinds[k] == 0 {
			t.Errorf("no %s records", k)
		}
	}
	if lo < 400 || hi < 4<<20 || hi > 6<<20 {
		t.Errorf("sizes %d to %d bytes", lo, hi)
	}
	per := map[string]int{}
	for _, q := range set.Questions {
		per[q.Class]++
		for _, e := range q.Expect {
			if len(e.Keys) == 0 || e.Value == "" {
				t.Errorf("%s: expects nothing: %+v", q.ID, e)
			}
		}
	}
	for _, class := range Classes {
		if per[class] < 30 {
			t.Errorf("class %s: %d questions", class, per[class])
		}
	}
}

package retrievalcorpus

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The question classes.
const (
	ClassIdentifier = "identifier" // an id as the agent has it: CHK-4410, PR #4412, a Sentry short id
	ClassError      = "error"      // an error message or log line, or a piece of one
	ClassParaphrase = "paraphrase" // the agent's own words for what happened
	ClassField      = "field"      // one field of a record: who owns, which release, what default
	ClassTwoFacts   = "two-facts"  // two facts held by two different records
)

// Classes lists the classes in report order.
var Classes = []string{ClassIdentifier, ClassError, ClassParaphrase, ClassField, ClassTwoFacts}

// PerClass is how many questions each class gets.
const PerClass = 36

// Question is one search an agent makes, and what answers it.
type Question struct {
	ID     string   `json:"id"`
	Class  string   `json:"class"`
	Query  string   `json:"query"`
	Expect []Expect `json:"expect"`
}

// Expect is one fact the answer needs: any of Keys holds it, and a good
// snippet of that record shows Value. A question is answered when every
// Expect's records are found.
type Expect struct {
	Fact  string   `json:"fact"`
	Value string   `json:"value"`
	Keys  []string `json:"keys"`
}

// QuestionSet is the frozen file's contents.
type QuestionSet struct {
	Seed      int64      `json:"seed"`
	Records   int        `json:"records"`
	Questions []Question `json:"questions"`
}

// asker builds questions from a corpus with its own random source, so
// questions never shift the corpus.
type asker struct {
	c     *Corpus
	r     *rand.Rand
	lower []string // each record's text, lower-cased (for ambiguity checks)
	facts map[string]map[string]bool
}

func (a *asker) pick(list []string) string { return list[a.r.IntN(len(list))] }

// Questions builds the question set of the corpus: PerClass per class,
// each checked to have one right answer.
func (c *Corpus) Questions() QuestionSet {
	a := &asker{c: c, r: rand.New(rand.NewPCG(uint64(c.Seed), 0x9e57)), facts: map[string]map[string]bool{}}
	for _, r := range c.Records {
		a.lower = append(a.lower, strings.ToLower(r.Text()))
		for _, f := range r.Facts {
			if a.facts[f.Name] == nil {
				a.facts[f.Name] = map[string]bool{}
			}
			a.facts[f.Name][f.Value] = true
		}
	}
	set := QuestionSet{Seed: c.Seed, Records: len(c.Records)}
	for _, class := range Classes {
		var cands []Question
		switch class {
		case ClassIdentifier:
			cands = a.identifiers()
		case ClassError:
			cands = a.errors()
		case ClassParaphrase:
			cands = a.paraphrases()
		case ClassField:
			cands = a.fields()
		case ClassTwoFacts:
			cands = a.twoFacts()
		}
		a.r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
		n := 0
		for _, q := range cands {
			if n == PerClass || !a.sound(&q) {
				continue
			}
			n++
			q.ID, q.Class = fmt.Sprintf("%s-%02d", class, n), class
			set.Questions = append(set.Questions, q)
		}
	}
	return set
}

// expect is an Expect of fact name holding value; show is what the
// snippet must show ("" for value itself).
func expect(name, value, show string) Expect {
	if show == "" {
		show = value
	}
	return Expect{Fact: name + "=" + value, Value: show}
}

// sound fills in the records of q's facts and reports whether q has one
// right answer: each fact held by some record and by no record with
// another value, two facts in disjoint records, and a fragment of text
// (an error) found only in the records expected.
func (a *asker) sound(q *Question) bool {
	seen := map[string]bool{}
	for i := range q.Expect {
		e := &q.Expect[i]
		name, value, _ := strings.Cut(e.Fact, "=")
		if len(a.facts[name]) != 1 {
			return false
		}
		e.Keys = a.c.Holding(name, value)
		if len(e.Keys) == 0 {
			return false
		}
		for _, k := range e.Keys {
			if seen[k] {
				return false
			}
			seen[k] = true
		}
	}
	if q.Class == ClassError {
		frag := strings.ToLower(strings.Trim(q.Query, `"`))
		for i, r := range a.c.Records {
			if strings.Contains(a.lower[i], frag) && !seen[r.Key] {
				return false
			}
		}
	}
	return true
}

// EncodeQuestions is the frozen file's encoding of set.
func EncodeQuestions(set QuestionSet) ([]byte, error) {
	b, err := marshal(set, true)
	return append(b, '\n'), err
}

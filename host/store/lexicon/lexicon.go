// Package lexicon relates an English word to the words others use for
// the same thing, so that a search in an agent's own words ("stock
// counts", "bills people twice") finds records in a system's words
// ("inventory", "charge", "invoice"). The table is compiled from
// WordNet 3.0 (Princeton University's lexical database, under the
// WordNet 3.0 licence: use, copy, modify and distribute with its
// copyright notice; see LICENSE.wordnet) by ./gen, and shipped in the
// binary: nothing is read or fetched at run time.
package lexicon

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"slices"
	"strings"
	"sync"
)

//go:embed related.txt.gz
var related []byte

var (
	once  sync.Once
	table map[string][]string
)

// load decodes the table on first use (about 47,000 words): a process
// that never searches in words never pays for it.
func load() {
	table = map[string][]string{}
	zr, err := gzip.NewReader(bytes.NewReader(related))
	if err != nil {
		return // a build with a damaged table relates nothing
	}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 1 {
			table[f[0]] = f[1:]
		}
	}
}

// Forms returns w's dictionary forms in the table: w itself when the
// table holds it, and what undoing an inflection gives ("crashes" ->
// "crash", "locking" -> "locking" and "lock", "queries" -> "query").
func Forms(w string) []string {
	once.Do(load)
	var out []string
	if _, ok := table[w]; ok {
		out = append(out, w)
	}
	for _, r := range suffixes {
		if len(w) > len(r.from)+2 && strings.HasSuffix(w, r.from) {
			b := w[:len(w)-len(r.from)] + r.to
			if _, ok := table[b]; ok && !slices.Contains(out, b) {
				out = append(out, b)
			}
		}
	}
	return out
}

// suffixes undo English inflection, longest first (WordNet's own
// detachment rules, and a doubled final consonant).
var suffixes = []struct{ from, to string }{
	{"ies", "y"}, {"sses", "ss"}, {"xes", "x"}, {"ches", "ch"}, {"shes", "sh"}, {"zes", "z"}, {"ses", "s"},
	{"es", "e"}, {"s", ""}, {"ied", "y"}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""},
	{"er", ""}, {"er", "e"}, {"est", ""}, {"est", "e"},
	{"bbed", "b"}, {"dded", "d"}, {"gged", "g"}, {"mmed", "m"}, {"nned", "n"}, {"pped", "p"}, {"tted", "t"},
	{"bbing", "b"}, {"dding", "d"}, {"gging", "g"}, {"mming", "m"}, {"nning", "n"}, {"pping", "p"}, {"tting", "t"},
}

// Related returns the words WordNet gives for w's commonest senses (at
// most 12), or none. w is a lowercase word in its dictionary form.
func Related(w string) []string {
	once.Do(load)
	return table[w]
}

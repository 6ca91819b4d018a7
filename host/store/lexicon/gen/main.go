// Command gen compiles the related-word table of package lexicon from
// WordNet 3.0's database files (Debian's wordnet-base package installs
// them in /usr/share/wordnet): for each single English word, the other
// words of its most frequent senses (synonyms), and of the adjectives
// WordNet marks similar to them. Run it with `make lexicon`; the table
// it writes is committed, so a build needs no WordNet.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// maxSenses bounds the senses of a word taken, most frequent first:
// a word's rare senses ("stock" the broth, the gunstock) are noise.
const maxSenses = 3

// maxRelated bounds the related words kept for one word.
const maxRelated = 12

var posFiles = []struct{ index, data string }{
	{"index.noun", "data.noun"}, {"index.verb", "data.verb"}, {"index.adj", "data.adj"}, {"index.adv", "data.adv"},
}

type synset struct {
	words   []string
	similar []string // offsets of similar-to synsets (adjectives)
}

func main() {
	dir := flag.String("wordnet", "/usr/share/wordnet", "WordNet 3.0 database directory")
	out := flag.String("out", "related.txt.gz", "table to write")
	flag.Parse()
	table := map[string][]string{}
	for _, f := range posFiles {
		sets, err := readData(filepath.Join(*dir, f.data))
		check(err)
		check(readIndex(filepath.Join(*dir, f.index), sets, table))
	}
	check(write(*out, table))
}

// readData reads a data.* file: each synset's single words (lowercase,
// letters only) and its similar-to pointers.
func readData(path string) (map[string]synset, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sets := map[string]synset{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || line[0] == ' ' {
			continue // the licence header
		}
		f := strings.Fields(strings.SplitN(line, " | ", 2)[0])
		n, err := strconv.ParseInt(f[3], 16, 32)
		if err != nil || len(f) < 4+2*int(n)+1 {
			return nil, fmt.Errorf("%s: bad line %.40q", path, line)
		}
		var s synset
		for i := 0; i < int(n); i++ {
			if w := word(f[4+2*i]); w != "" {
				s.words = append(s.words, w)
			}
		}
		rest := f[4+2*n:]
		p, _ := strconv.Atoi(rest[0])
		for i := 0; i < p && 1+4*i+3 < len(rest); i++ {
			if rest[1+4*i] == "&" {
				s.similar = append(s.similar, rest[1+4*i+1])
			}
		}
		sets[f[0]] = s
	}
	return sets, nil
}

// word returns a WordNet lemma as the table keeps it: one lowercase
// word of letters (an adjective's marker "(a)" dropped), or "".
func word(lemma string) string {
	if i := strings.IndexByte(lemma, '('); i > 0 {
		lemma = lemma[:i]
	}
	lemma = strings.ToLower(lemma)
	if len(lemma) < 3 {
		return ""
	}
	for _, r := range lemma {
		if r < 'a' || r > 'z' {
			return ""
		}
	}
	return lemma
}

// readIndex adds, for each word of an index.* file, the words of its
// first senses and of their similar synsets.
func readIndex(path string, sets map[string]synset, table map[string][]string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == ' ' {
			continue
		}
		fs := strings.Fields(line)
		w := word(fs[0])
		if w == "" || len(fs) < 4 {
			continue
		}
		p, _ := strconv.Atoi(fs[3])
		senses := fs[4+p+2:]
		for _, off := range senses[:min(len(senses), maxSenses)] {
			s := sets[off]
			related := append([]string(nil), s.words...)
			for _, o := range s.similar {
				related = append(related, sets[o].words...)
			}
			table[w] = appendNew(table[w], w, related)
		}
	}
	return sc.Err()
}

func appendNew(have []string, self string, add []string) []string {
	for _, a := range add {
		if a == self || len(have) >= maxRelated {
			continue
		}
		dup := false
		for _, h := range have {
			dup = dup || h == a
		}
		if !dup {
			have = append(have, a)
		}
	}
	return have
}

// write writes the table, one word a line followed by its related
// words, sorted, gzipped reproducibly (no name, no time).
func write(path string, table map[string][]string) error {
	var keys []string
	for k, v := range table {
		if len(v) > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	for _, k := range keys {
		fmt.Fprintf(zw, "%s %s\n", k, strings.Join(table[k], " "))
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "lexicon gen:", err)
		os.Exit(1)
	}
}

package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// A history written by many sessions, from the recorded ones: each
// generated file is a recorded history of its harness repeated (each
// repetition a turn of its own, its ticket, session and trace ids made
// unique), laid out where the harness writes it. The mix is seeded, so a
// seed and a size always give the same bytes: most sessions are short
// (a few turns), a few are long (hundreds), and each ticket fetch carries
// a tool result of its own size, from 1 KB to several MB.

// layout is where each recorded history goes under the home: a format
// string taking the file's number.
var layout = map[string]string{
	"claude-code-2.1.330.jsonl": ".claude/projects/-p%d/s%d.jsonl",
	"codex-0.169.0.jsonl":       ".codex/sessions/2026/11/%d/rollout-%d.jsonl",
	"copilot-1.0.102.jsonl":     ".copilot/session-state/s%d-%d/events.jsonl",
	"droid-0.225.2.jsonl":       ".factory/sessions/-p%d/s%d.jsonl",
	"gemini-0.61.0.jsonl":       ".gemini/tmp/p%d/chats/session-%d.jsonl",
	"qwen-0.24.4.jsonl":         ".qwen/projects/-p%d/chats/s%d.jsonl",
	"pi-1.6.0.jsonl":            ".pi/agent/sessions/--p%d--/t_%d.jsonl",
}

var (
	ticket = regexp.MustCompile(`CVX-5909|cvx-5909`)
	// resultAnchor is the ticket's title, in the tool result of every
	// recorded history: the generated output follows it.
	resultAnchor = []byte("checkout fails with HTTP 502 after the payments deploy")
)

// gen draws a history's shape from its seed.
type gen struct{ rng *rand.Rand }

func newGen(seed uint64) *gen { return &gen{rand.New(rand.NewPCG(seed, 0x1d3c))} }

// turns is how many repetitions of a recorded session one file holds:
// 70% of sessions 1-4, 25% 5-30, 5% 60-160 (a long day's work).
func (g *gen) turns() int {
	switch p := g.rng.IntN(100); {
	case p < 70:
		return 1 + g.rng.IntN(4)
	case p < 95:
		return 5 + g.rng.IntN(26)
	default:
		return 60 + g.rng.IntN(101)
	}
}

// resultSize is one tool result's size: 80% 1-16 KB, 19% 16-256 KB,
// 1% 0.5-4 MB (a build log, a dump).
func (g *gen) resultSize() int {
	switch p := g.rng.IntN(100); {
	case p < 80:
		return 1<<10 + g.rng.IntN(15<<10)
	case p < 99:
		return 16<<10 + g.rng.IntN(240<<10)
	default:
		return 512<<10 + g.rng.IntN(3584<<10)
	}
}

// words are what generated tool output is made of: plain words, paths,
// numbers and short ids, nothing a JSON string at any depth must escape.
var words = strings.Fields(`the a of to in is for on with request response handler gateway retry
timeout error warning info debug build test pass fail ok cache read write open close user order
payment checkout deploy region latency service config value field table index query row column
src/pkg/server.go src/app/main.ts lib/util.py internal/store/db.go 200 404 502 1024 65536 0.25
eu-west-1 us-east-2 GET POST PUT v1.4.2 v2.0.0-rc1 id=7f3a9c rev=91be20 line:118 col:22 true false null`)

// output is n bytes of generated tool output.
func (g *gen) output(n int) []byte {
	b := make([]byte, 0, n+16)
	for len(b) < n {
		b = append(b, words[g.rng.IntN(len(words))]...)
		if g.rng.IntN(12) == 0 {
			b = append(b, '.')
		}
		b = append(b, ' ')
	}
	return b[:n]
}

// session is a recorded history repeated reps times (fewer if it reaches
// limit bytes), each repetition with a ticket of its own and a tool result
// of its own size.
func (g *gen) session(src []byte, first, reps int, limit int64) []byte {
	var buf bytes.Buffer
	for k := 0; k < reps && int64(buf.Len()) < limit; k++ {
		rep := ticket.ReplaceAll(src, []byte(fmt.Sprintf("CVX-%d", 10000+first+k)))
		out := append(append(append([]byte{}, resultAnchor...), ' '), g.output(g.resultSize())...)
		buf.Write(bytes.ReplaceAll(rep, resultAnchor, out))
	}
	return buf.Bytes()
}

// generate writes about target bytes of mixed history under home and
// returns what it wrote.
func generate(fixtures, home string, target int64, seed uint64) (int64, error) {
	names := make([]string, 0, len(layout))
	srcs := map[string][]byte{}
	for name := range layout {
		b, err := os.ReadFile(filepath.Join(fixtures, name))
		if err != nil {
			return 0, err
		}
		srcs[name] = b
		names = append(names, name)
	}
	slices.Sort(names) // map order is random: the seed alone decides
	g := newGen(seed)
	// OpenCode's and Kilo's databases take a tenth of the total.
	dbShare := target / 10
	var written int64
	old := time.Now().Add(-24 * time.Hour)
	for n, reps := 0, 0; written < target-dbShare; n++ {
		name := names[n%len(names)]
		k := g.turns()
		b := g.session(srcs[name], reps, k, target-dbShare-written)
		reps += k
		p := filepath.Join(home, fmt.Sprintf(layout[name], n%50, n))
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			return written, err
		}
		os.Chtimes(p, old, old) // written before install, quiet since
		written += int64(len(b))
	}
	for i, db := range []struct{ src, dst string }{{"opencode-1.18.33.db", ".local/share/opencode/opencode.db"}, {"kilo-7.7.7.db", ".local/share/kilo/kilo.db"}} {
		n, err := growDB(filepath.Join(fixtures, db.src), filepath.Join(home, db.dst), dbShare/2, newGen(seed+uint64(i)+1))
		written += n
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

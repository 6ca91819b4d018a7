// Package retrievalcorpus makes a realistic, seeded corpus of MCP tool
// responses (Jira tickets and searches, Sentry issues, Loki log dumps,
// GitHub pull requests, library docs, runbooks, incident timelines and
// Grafana panels) for measuring how well stored responses are found
// again, and the questions to measure it with.
//
// Every record is a tools/call result exactly as its server sends it
// (content text blocks, JSON with escaped newlines, structuredContent)
// and carries ground-truth facts: strings its text holds, named by the
// entity and field they belong to ("CHK-4410/assignee"). A question
// names the facts that answer it, and so the records that hold them.
// The same seed always gives the same bytes.
package retrievalcorpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"
)

// Seed is the seed of the frozen question set (testdata/retrieval).
const Seed = 20261122

// Base is the time of the first record; records span two weeks after it.
var Base = time.Date(2026, 11, 8, 9, 0, 0, 0, time.UTC)

// Fact is one thing a record's text holds: Name says whose field it is
// ("CHK-4410/assignee"), Value is the text itself.
type Fact struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Record is one recorded MCP call.
type Record struct {
	// Key names the record stably ("jira/get_issue/CHK-4410#2").
	Key     string `json:"key"`
	Kind    string `json:"kind"`
	Server  string `json:"server"`
	Tool    string `json:"tool"`
	Args    json.RawMessage
	Result  json.RawMessage // the CallToolResult as the server sends it
	Session string
	TimeMS  int64
	Facts   []Fact
}

// Content is the result's content blocks (what Claude Code hands a
// PostToolUse hook as tool_response).
func (r Record) Content() json.RawMessage {
	var res struct {
		Content json.RawMessage `json:"content"`
	}
	json.Unmarshal(r.Result, &res)
	return res.Content
}

// Text is the result's text blocks joined by newlines.
func (r Record) Text() string {
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	json.Unmarshal(r.Result, &res)
	parts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// Corpus is the generated records, in the order they were recorded.
type Corpus struct {
	Seed    int64
	Records []Record
	w       *world
}

// Generate makes the corpus of seed.
func Generate(seed int64) *Corpus {
	g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 0x5eed)), seed: seed}
	w := newWorld(g)
	g.stories(w)
	g.noise(w)
	g.order()
	return &Corpus{Seed: seed, Records: g.recs, w: w}
}

// Holding returns the keys of the records holding fact name with value.
func (c *Corpus) Holding(name, value string) []string {
	var keys []string
	for _, r := range c.Records {
		for _, f := range r.Facts {
			if f.Name == name && f.Value == value {
				keys = append(keys, r.Key)
				break
			}
		}
	}
	return keys
}

// gen is the generator's state: its random source and what it made.
type gen struct {
	r    *rand.Rand
	seed int64
	recs []Record
	seen map[string]int
}

func (g *gen) intn(n int) int         { return g.r.IntN(n) }
func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }
func (g *gen) chance(p float64) bool  { return g.r.Float64() < p }
func pick[T any](g *gen, list []T) T  { return list[g.r.IntN(len(list))] }
func (g *gen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.r.IntN(16)]
	}
	return string(b)
}

// add records one call; key is made unique with a #n suffix.
func (g *gen) add(kind, server, tool, subject string, args map[string]any, result json.RawMessage, facts ...Fact) *Record {
	if g.seen == nil {
		g.seen = map[string]int{}
	}
	key := server + "/" + tool + "/" + subject
	g.seen[key]++
	key += fmt.Sprintf("#%d", g.seen[key])
	a, _ := marshal(args, false)
	g.recs = append(g.recs, Record{Key: key, Kind: kind, Server: server, Tool: "mcp__" + server + "__" + tool,
		Args: a, Result: result, Facts: facts})
	return &g.recs[len(g.recs)-1]
}

// order shuffles the records into sessions over two weeks: a session is
// a run of calls minutes apart, as an agent makes them. A re-fetch stays
// after the first fetch.
func (g *gen) order() {
	g.r.Shuffle(len(g.recs), func(i, j int) { g.recs[i], g.recs[j] = g.recs[j], g.recs[i] })
	// Fetches of one subject keep their order (#1 before #2).
	first := map[string][]int{}
	for i, r := range g.recs {
		subj := r.Key[:strings.LastIndexByte(r.Key, '#')]
		first[subj] = append(first[subj], i)
	}
	for _, idx := range first {
		recs := make([]Record, len(idx))
		for k, i := range idx {
			recs[k] = g.recs[i]
		}
		sort.Slice(recs, func(a, b int) bool { return recs[a].Key < recs[b].Key })
		for k, i := range idx {
			g.recs[i] = recs[k]
		}
	}
	t := Base
	session := ""
	for i := range g.recs {
		if i%g.between(25, 45) == 0 || session == "" {
			session = fmt.Sprintf("sess-%s-%s-%s", g.hex(8), g.hex(4), g.hex(4))
			t = t.Add(time.Duration(g.between(30, 600)) * time.Minute)
		}
		t = t.Add(time.Duration(g.between(5, 240)) * time.Second)
		g.recs[i].Session, g.recs[i].TimeMS = session, t.UnixMilli()
	}
}

// marshal encodes v as servers do: no HTML escaping, indented or not.
func marshal(v any, indent bool) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// structured is a result whose text block holds payload as JSON (escaped
// newlines and all), with payload again as structuredContent.
func structured(payload any, indent bool) json.RawMessage {
	text, _ := marshal(payload, indent)
	res, _ := marshal(map[string]any{
		"content":           []map[string]string{{"type": "text", "text": string(text)}},
		"structuredContent": payload,
		"isError":           false,
	}, false)
	return res
}

// textResult is a result of one plain text block (markdown, log lines).
func textResult(text string) json.RawMessage {
	res, _ := marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": text}}}, false)
	return res
}

// jsonText is a result whose text block holds payload as JSON and no
// structuredContent (servers that predate it).
func jsonText(payload any, indent bool) json.RawMessage {
	text, _ := marshal(payload, indent)
	return textResult(string(text))
}

// Package bigpayload makes large, realistic MCP results for tests and
// benchmarks: a tracker's JSON search result (issues with prose,
// people, URLs, labels) with a few secrets of common kinds planted in it,
// as a Claude Code PostToolUse payload or as the result a server sends.
// The same size and seed always give the same bytes.
package bigpayload

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Secrets are planted in every result, each about once per MiB (a 1 KB
// result holds the first); none may be stored.
var Secrets = []string{
	"AKIAQ7PLANTEDKEY7X2Z",
	"ghp_Pl4nt3dT0k3nF0rBigPayl0adTests0001",
	"planted-db-pass-9c1e",
	"xoxb-917364521-planted-slack-token",
}

// Issues returns a JSON document of about n bytes: {"issues":[...]},
// holding marker in its last issue's summary, so a search for marker
// proves the last bytes were indexed.
func Issues(n int, marker string) string {
	var b strings.Builder
	b.Grow(n + 4096)
	b.WriteString(`{"total":0,"issues":[`)
	for i := 0; ; i++ {
		last := b.Len()+1500 >= n
		if i > 0 {
			b.WriteString(",")
		}
		extra := ""
		switch i % 1500 { // each kind about once per MiB
		case 3:
			extra = `"integration":{"aws_key_id":"` + Secrets[0] + `","region":"eu-west-2"},`
		case 400:
			extra = `"ci_note":"token for the runner: ` + Secrets[1] + ` (rotate monthly)",`
		case 800:
			extra = `"connection":"postgres://svc:` + Secrets[2] + `@db.internal:5432/app",`
		case 1200:
			extra = `"webhook":"slack ` + Secrets[3] + ` posts to #ops",`
		}
		summary := fmt.Sprintf("Gateway retry flag misbehaves under load (case %d)", i)
		if last {
			summary = "Final issue " + marker
		}
		fmt.Fprintf(&b, `{"key":"CVX-%d","fields":{"summary":%q,%s"status":{"name":"In Progress"},`+
			`"assignee":{"displayName":"Dana Kim","emailAddress":"dana.kim@example.com"},`+
			`"description":"The gateway retries requests after a 503 from the upstream pool.\nWhen the pool is drained the retry budget is exhausted and callers see timeouts.\nSteps: 1. drain pool 2. send 100 rps 3. observe p99 in the \"latency\" panel.\nSee https://wiki.example.com/display/OPS/Gateway+Retries for context.",`+
			`"labels":["gateway","retry","p%d"],"created":"2026-10-%02dT10:00:00.000+0000","comments":%d}}`,
			i, summary, extra, i%4, 1+i%28, i%13)
		if last {
			break
		}
	}
	b.WriteString(`]}`)
	return b.String()
}

// Result is an MCP CallToolResult holding Issues(n, marker) as one text
// block, as a server sends it.
func Result(n int, marker string) []byte {
	b, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": Issues(n, marker)}}})
	return b
}

// ClaudePostToolUse is a Claude Code 2.1.330 PostToolUse payload for an
// MCP call whose result is Issues(n, marker): tool_response is the
// content-block array, as Claude Code passes it.
func ClaudePostToolUse(n int, marker, session, toolUseID string) []byte {
	blocks, _ := json.Marshal([]map[string]string{{"type": "text", "text": Issues(n, marker)}})
	b, _ := json.Marshal(map[string]any{
		"session_id": session, "transcript_path": "/nonexistent/" + session + ".jsonl", "cwd": "/tmp/project",
		"permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": "mcp__jira__search_issues",
		"tool_input": map[string]any{"jql": "project = CVX ORDER BY created"}, "tool_use_id": toolUseID,
		"mcp_server": map[string]string{"name": "jira", "source": "user"}, "tool_response": json.RawMessage(blocks),
	})
	return b
}

// PlantedTerms are the terms Plant puts into a body.
var PlantedTerms = []string{"zqstartmark", "zqmiddlemark", "zqendmark"}

// Plant writes PlantedTerms into body: one at its very start, one in its
// last 100 bytes, and one across the cut in the middle of a body the
// store keeps in parts (a head of headSize bytes, then parts of partSize)
// or, for a body stored whole, in its middle. The middle term sits in a
// 16 KiB run of dots: no newline, space or closing punctuation, so the
// cut falls inside the term, yet past the trigram index's first MiB the
// word index still sees a word.
func Plant(body []byte, headSize, partSize int) []string {
	n := len(body)
	terms := PlantedTerms
	copy(body, terms[0]+" ")
	mid := n / 2
	if n > partSize {
		parts := (n - headSize + partSize - 1) / partSize
		mid = headSize + parts/2*partSize
		for i := mid - 8<<10; i < mid+8<<10; i++ {
			body[i] = '.'
		}
	}
	copy(body[mid-len(terms[1])/2:], terms[1])
	copy(body[n-60:], " "+terms[2]+" ")
	return terms
}

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/e2e/internal/fakemodel"
)

// TestClaudeCodeMCPServer: real Claude Code fetches a ticket, then calls
// ctxhook's own MCP server (the entry `ctxhook install claude-code` wrote)
// to search for it and read it back with get_event; the fake model must
// receive the answers with their metadata. Claude Code 2.1.330 hands the
// model a tool's structuredContent (JSON) rather than its text when both
// are present, so the metadata arrives as the JSON's "meta".
func TestClaudeCodeMCPServer(t *testing.T) {
	requireE2E(t)
	script := []fakemodel.Step{
		{Tool: "mcp__tickets__get_ticket", Input: map[string]any{"id": "CVX-5909"}},
		{Tool: "mcp__ctxhook__search", Input: map[string]any{"query": "CVX-5909", "limit": 3}},
		{Tool: "mcp__ctxhook__get_event", InputFrom: func(prev string) map[string]any {
			// Read the ticket's event id off the search answer, as a model would.
			var ans struct {
				Results []struct {
					ID   int    `json:"id"`
					Tool string `json:"tool"`
				} `json:"results"`
			}
			json.Unmarshal([]byte(prev), &ans)
			for _, r := range ans.Results {
				if r.Tool == "mcp__tickets__get_ticket" {
					return map[string]any{"id": r.ID, "length": 4096}
				}
			}
			return map[string]any{"id": "no-ticket-in-search-result"}
		}},
	}
	r := runClaudeWith(t, claudeOpts{script: script, prompt: "Check ticket CVX-5909, then find it again in ctxhook.",
		ownMCP: true})

	var search, event string
	for _, req := range r.Model.Requests() {
		var body struct {
			Messages []struct {
				Content []json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(req, &body)
		for _, m := range body.Messages {
			for _, raw := range m.Content {
				var b struct {
					Type    string          `json:"type"`
					Content json.RawMessage `json:"content"`
				}
				json.Unmarshal(raw, &b)
				if b.Type != "tool_result" {
					continue
				}
				text := string(b.Content)
				var str string
				if json.Unmarshal(b.Content, &str) == nil {
					text = str // Claude Code passes structuredContent as one JSON string
				}
				switch {
				case strings.Contains(text, `results_total`) && strings.Contains(text, `snippet`):
					search = text
				case strings.Contains(text, `next_offset`):
					event = text
				}
			}
		}
	}
	if search == "" || event == "" {
		t.Fatalf("the model did not receive both answers (search %d bytes, get_event %d bytes)", len(search), len(event))
	}
	for _, want := range []string{`"tokens"`, `"duration_ms"`, `"results_total"`, `"results_returned"`, `"index_size"`,
		`"index_last_updated"`, `"request_id"`, `"tool_version"`, `"confidence"`, "mcp__tickets__get_ticket"} {
		if !strings.Contains(search, want) {
			t.Errorf("search answer lacks %q: %.600s", want, search)
		}
	}
	for _, want := range []string{`"results_total":1`, "CVX-5909", "retryPolicyForGateway"} {
		if !strings.Contains(event, want) {
			t.Errorf("get_event answer lacks %q: %.600s", want, event)
		}
	}
	for _, s := range planted {
		if strings.Contains(event, s) {
			t.Errorf("get_event returned planted secret %q", s)
		}
	}
	// ctxhook's own calls are recorded but never nudged.
	out, _, _ := run(t, time.Minute, r.env(), r.Project, nil, r.CtxhookBin, "stats", "--json")
	if !strings.Contains(out, `"ctxhook"`) {
		t.Errorf("ctxhook's own calls not recorded: %s", out)
	}

}

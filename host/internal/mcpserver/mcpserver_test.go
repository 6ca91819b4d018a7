package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/bigpayload"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// session connects the official Go SDK client to a server over the SDK's
// in-memory transport, with a real store holding events.
func session(t *testing.T, events []abi.Event) *mcp.ClientSession {
	t.Helper()
	db := filepath.Join(t.TempDir(), "ctxhook.db")
	if events != nil {
		st, err := store.Open(db, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Apply(events, []abi.Effect{{Op: abi.OpTally, Session: "s1", Name: abi.TallyRefetch, Count: 2}}); err != nil {
			t.Fatal(err)
		}
		if len(events) > 1 {
			turns := []abi.Chunk{
				{TimeMS: now.Add(-time.Hour).UnixMilli(), Session: "s1", Harness: "claude-code", Cwd: "/proj", Text: "user: why does checkout fail?\nassistant: the zebra-gateway flag is off", Bytes: 70},
				{TimeMS: now.Add(-50 * time.Minute).UnixMilli(), Session: "s1", Harness: "claude-code", Cwd: "/proj", Text: "user: turn it on\ntool mcp__flags__set {}", Bytes: 40},
			}
			if err := st.ApplyChunks("/t/s1.jsonl", turns, 123, now.UnixMilli()); err != nil {
				t.Fatal(err)
			}
		}
		st.Close()
	}
	return connectTo(t, New(Options{DB: db, Version: "test", Now: func() time.Time { return now }}), "")
}

// connectTo connects a client to srv in memory, speaking MCP revision
// version ("": the SDK's newest); the session ends with the test.
func connectTo(t *testing.T, srv *Server, version string) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func corpus() []abi.Event {
	mk := func(i int, session, server, tool, text string) abi.Event {
		return abi.Event{TimeMS: now.Add(time.Duration(i-100) * time.Minute).UnixMilli(), Session: session, Harness: "claude-code",
			HookEvent: "PostToolUse", Category: "mcp", Server: server, Tool: tool, Cwd: "/proj",
			Args: `{"id":"X"}`, Response: `[{"type":"text","text":"` + text + `"}]`, Text: text,
			ResponseBytes: len(text) + 30, Key: "e" + strings.Repeat("0", 15) + string(rune('a'+i))}
	}
	big := strings.Repeat("lorem ipsum dolor sit amet ", 4000) + "THE-END-MARKER"
	evs := []abi.Event{
		mk(1, "s1", "jira", "mcp__jira__get_issue", "Ticket CVX-5909: checkout fails with HTTP 502 from the payments gateway"),
		mk(2, "s1", "sentry", "mcp__sentry__get_event", "TypeError in getUserById at src/api/users.ts:42"),
		mk(3, "s1", "jira", "mcp__jira__get_issue", "Ticket CVX-5910: retryPolicyForGateway misconfigured"),
		mk(4, "s2", "jira", "mcp__jira__get_issue", "Ticket CVX-1000: printers"),
		mk(5, "s1", "grafana", "mcp__grafana__query", big),
	}
	evs[2].ContextBytes = 10
	return evs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	var out map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
	}
	return res, out
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// metaFields is every field every answer's metadata must carry.
var metaFields = []string{"tokens", "duration_ms", "timestamp", "cached", "results_total", "results_returned",
	"results_truncated", "index_size", "index_last_updated", "warnings", "request_id", "tool_version"}

func checkMeta(t *testing.T, name string, res *mcp.CallToolResult, out map[string]any) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("%s: tool error %s", name, text(res))
	}
	m, _ := out["meta"].(map[string]any)
	for _, f := range metaFields {
		if _, ok := m[f]; !ok {
			t.Errorf("%s: structured meta lacks %s: %v", name, f, m)
		}
	}
	wire, _ := json.Marshal(res.Meta["ctxhook"])
	var fromMeta map[string]any
	json.Unmarshal(wire, &fromMeta)
	if fromMeta["request_id"] != m["request_id"] || fromMeta["results_total"] != m["results_total"] {
		t.Errorf("%s: _meta.ctxhook differs from structuredContent.meta: %v vs %v", name, fromMeta, m)
	}
	if first := strings.SplitN(text(res), "\n", 2)[0]; !strings.HasPrefix(first, "[ctxhook] ") || !strings.Contains(first, "tokens") {
		t.Errorf("%s: text does not start with the essentials: %q", name, first)
	}
	if tok, _ := m["tokens"].(float64); int(tok) < len(text(res))/4-1 || int(tok) > len(text(res))/4+2 {
		t.Errorf("%s: tokens %v for %d bytes of text", name, tok, len(text(res)))
	}
	return m
}

func TestToolsHaveSchemas(t *testing.T) {
	cs := session(t, corpus())
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		got[tool.Name] = tool
	}
	for name, required := range map[string][]string{"search": {"query"}, "get_context": {"chunk_id"}, "get_event": {"id"}, "stats": nil} {
		tool := got[name]
		if tool == nil {
			t.Fatalf("no tool %s", name)
		}
		in, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Required []string `json:"required"`
		}
		json.Unmarshal(in, &schema)
		if strings.Join(schema.Required, ",") != strings.Join(required, ",") {
			t.Errorf("%s: required %v, want %v", name, schema.Required, required)
		}
		out, _ := json.Marshal(tool.OutputSchema)
		for _, f := range append([]string{`"meta"`}, quoted(metaFields)...) {
			if !strings.Contains(string(out), f) {
				t.Errorf("%s: outputSchema lacks %s", name, f)
			}
		}
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: not marked read-only", name)
		}
	}
}

func quoted(ss []string) []string {
	var out []string
	for _, s := range ss {
		out = append(out, `"`+s+`"`)
	}
	return out
}

func TestSearch(t *testing.T) {
	cs := session(t, corpus())
	res, out := callTool(t, cs, "search", map[string]any{"query": "Ticket", "session": "s1", "limit": 1})
	m := checkMeta(t, "search", res, out)
	results, _ := out["results"].([]any)
	if len(results) != 1 || m["results_total"] != float64(2) || m["results_returned"] != float64(1) || m["results_truncated"] != true {
		t.Fatalf("search Ticket: %d results, meta %v", len(results), m)
	}
	hit := results[0].(map[string]any)
	if c, _ := hit["confidence"].(float64); c <= 0 || c > 1 {
		t.Errorf("confidence %v", hit["confidence"])
	}
	if m["cached"] != false || m["index_size"] != float64(7) || m["tool_version"] != "test" {
		t.Errorf("meta %v", m)
	}
	// The same request again, index unchanged: from the cache.
	res, out = callTool(t, cs, "search", map[string]any{"query": "Ticket", "session": "s1", "limit": 1})
	if m2 := checkMeta(t, "search again", res, out); m2["cached"] != true || m2["request_id"] == m["request_id"] {
		t.Errorf("repeat not cached or same request id: %v", m2)
	}
	// Filters.
	for _, tt := range []struct {
		args map[string]any
		want int
	}{
		{map[string]any{"query": "CVX", "server": "jira", "session": "s2"}, 1},
		{map[string]any{"query": "getUserById", "category": "mcp"}, 1},
		{map[string]any{"query": "Ticket", "since": "2026-11-22T10:23:30Z"}, 1},
		{map[string]any{"query": "Ticket", "until": "2026-11-22T10:22:00Z"}, 1},
		{map[string]any{"query": "Ticket", "since": "98m"}, 2},
	} {
		res, out := callTool(t, cs, "search", tt.args)
		m := checkMeta(t, "search", res, out)
		if m["results_total"] != float64(tt.want) {
			t.Errorf("search %v: total %v, want %d\n%s", tt.args, m["results_total"], tt.want, text(res))
		}
	}
}

// TestSearchPartial: when no event holds every term, search answers
// with the nearest partial matches, and names the terms in no event.
func TestSearchPartial(t *testing.T) {
	cs := session(t, corpus())
	res, out := callTool(t, cs, "search", map[string]any{"query": "who owns the getUserById zqnowhere work"})
	m := checkMeta(t, "search", res, out)
	results, _ := out["results"].([]any)
	if len(results) == 0 {
		t.Fatalf("no results:\n%s", text(res))
	}
	hit := results[0].(map[string]any)
	if missing, _ := hit["missing"].([]any); len(missing) != 2 || missing[0] != "zqnowhere" {
		t.Errorf("missing %v", hit["missing"])
	}
	if !strings.Contains(text(res), "nearest partial matches") || !strings.Contains(text(res), "In no event: zqnowhere, work.") {
		t.Errorf("text:\n%s", text(res))
	}
	if !strings.Contains(fmt.Sprint(m["warnings"]), "TERMS_UNMATCHED") {
		t.Errorf("warnings %v", m["warnings"])
	}
	// Nothing at all: the answer still names the terms.
	res, _ = callTool(t, cs, "search", map[string]any{"query": "zqnowhere zqnothing"})
	if !strings.Contains(text(res), "In no event: zqnowhere, zqnothing.") {
		t.Errorf("nothing found:\n%s", text(res))
	}
}

func TestErrors(t *testing.T) {
	cs := session(t, corpus())
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search", map[string]any{"query": "   "}, "query is empty"},
		{"search", map[string]any{"query": "x", "limit": -1}, "between 1 and 50"},
		{"search", map[string]any{"query": "x", "limit": 100000}, "between 1 and 50, not 100000 (narrow the query, or filter by server or session)"},
		{"get_event", map[string]any{"id": 1, "length": 1 << 30}, "read on with offset"},
		{"search", map[string]any{"query": "x", "since": "yesterday"}, "is not a time"},
		{"search", map[string]any{}, "query"},
		{"search", map[string]any{"query": strings.Repeat("a", 500<<10)}, "at most 4096 bytes and 64 terms"},
		{"search", map[string]any{"query": strings.Repeat("ab ", 65)}, "at most 4096 bytes and 64 terms"},
		{"get_event", map[string]any{"id": 999}, "no event 999"},
		{"get_event", map[string]any{"id": "enope"}, "no event enope"},
		{"get_event", map[string]any{"id": 1.5}, "positive event id"},
		{"get_event", map[string]any{"id": 1, "length": -5}, "between 1 and"},
		{"get_event", map[string]any{"id": 1, "offset": 1 << 30}, "past the end"},
		{"get_event", map[string]any{"id": []int{1}}, "number or a string"},
		{"get_context", map[string]any{"chunk_id": 1, "direction": "sideways"}, "before, after or both"},
		{"get_context", map[string]any{"chunk_id": 1, "count": 11}, "between 1 and 10"},
		{"stats", map[string]any{"session": "nope"}, "no events for session"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
		if err != nil {
			t.Errorf("%s %v: protocol error %v (want a tool error)", tt.tool, tt.args, err)
			continue
		}
		if !res.IsError || !strings.Contains(text(res), tt.want) {
			t.Errorf("%s %v: isError=%v %q, want %q", tt.tool, tt.args, res.IsError, text(res), tt.want)
		}
	}
}

func TestGetEventPagesAndKeys(t *testing.T) {
	cs := session(t, corpus())
	res, out := callTool(t, cs, "get_event", map[string]any{"id": 5, "length": 1000})
	m := checkMeta(t, "get_event", res, out)
	if out["length"] != float64(1000) || out["next_offset"] != float64(1000) || m["results_truncated"] != true {
		t.Fatalf("page 1: %v", out)
	}
	total := int(out["total_bytes"].(float64))
	res, out = callTool(t, cs, "get_event", map[string]any{"id": "e000000000000000f", "offset": total - 100})
	checkMeta(t, "get_event by key", res, out)
	if !strings.HasSuffix(out["body"].(string), "THE-END-MARKER") || out["next_offset"] != float64(total) {
		t.Fatalf("last page: %v", out["body"])
	}
	res, out = callTool(t, cs, "get_event", map[string]any{"id": "1", "raw": true})
	checkMeta(t, "get_event raw", res, out)
	if out["format"] != "json" || !strings.HasPrefix(out["body"].(string), "[") {
		t.Errorf("raw: %v", out)
	}
}

func TestGetContextAndStats(t *testing.T) {
	cs := session(t, corpus())
	res, out := callTool(t, cs, "get_context", map[string]any{"chunk_id": 2, "count": 1})
	checkMeta(t, "get_context", res, out)
	evs, _ := out["events"].([]any)
	if len(evs) != 3 || out["session"] != "s1" || out["project"] != "/proj" {
		t.Fatalf("context: %v", out)
	}
	ids := []float64{}
	for _, e := range evs {
		ids = append(ids, e.(map[string]any)["id"].(float64))
	}
	if ids[0] != 1 || ids[1] != 2 || ids[2] != 3 || evs[1].(map[string]any)["anchor"] != true {
		t.Errorf("context ids %v", ids)
	}
	_, out = callTool(t, cs, "get_context", map[string]any{"chunk_id": 3, "direction": "after"})
	if evs, _ := out["events"].([]any); len(evs) != 2 { // 3, then 5 (4 is another session)
		t.Errorf("after: %v", out["events"])
	}
	res, out = callTool(t, cs, "stats", map[string]any{"session": "s1"})
	checkMeta(t, "stats", res, out)
	if out["events"] != float64(4) || out["refetches_avoided"] != float64(2) || out["mcp_calls"] != float64(4) {
		t.Errorf("stats: %v", out)
	}
}

func TestEmptyAndStaleIndex(t *testing.T) {
	cs := session(t, nil) // no store at all
	res, out := callTool(t, cs, "search", map[string]any{"query": "anything"})
	m := checkMeta(t, "search empty", res, out)
	if w := m["warnings"].([]any); len(w) != 1 || w[0].(map[string]any)["code"] != "INDEX_EMPTY" {
		t.Errorf("warnings %v", m["warnings"])
	}
	old := corpus()[:1]
	old[0].TimeMS = now.Add(-72 * time.Hour).UnixMilli()
	cs = session(t, old)
	res, out = callTool(t, cs, "search", map[string]any{"query": "CVX"})
	m = checkMeta(t, "search stale", res, out)
	if w := m["warnings"].([]any); len(w) != 1 || w[0].(map[string]any)["code"] != "INDEX_STALE" {
		t.Errorf("warnings %v", m["warnings"])
	}
}

func TestTranscriptChunks(t *testing.T) {
	cs := session(t, corpus())
	res, out := callTool(t, cs, "search", map[string]any{"query": "zebra-gateway"})
	checkMeta(t, "search chunks", res, out)
	results, _ := out["results"].([]any)
	if len(results) != 1 {
		t.Fatalf("search zebra-gateway: %v", out)
	}
	hit := results[0].(map[string]any)
	if hit["kind"] != "chunk" || hit["ref"] != "c1" || hit["category"] != "transcript" {
		t.Fatalf("hit %v", hit)
	}
	res, out = callTool(t, cs, "get_event", map[string]any{"id": "c1"})
	checkMeta(t, "get_event chunk", res, out)
	if !strings.Contains(out["body"].(string), "zebra-gateway flag is off") {
		t.Errorf("chunk body %v", out["body"])
	}
	res, out = callTool(t, cs, "get_context", map[string]any{"chunk_id": "c1", "direction": "after"})
	checkMeta(t, "get_context chunk", res, out)
	if evs := out["events"].([]any); len(evs) != 2 || out["project"] != "/proj" {
		t.Errorf("chunk context %v", out)
	}
	// A server filter leaves transcripts out; category transcript keeps only them.
	_, out = callTool(t, cs, "search", map[string]any{"query": "checkout", "server": "jira"})
	for _, r := range out["results"].([]any) {
		if r.(map[string]any)["kind"] == "chunk" {
			t.Errorf("server filter returned a chunk")
		}
	}
	_, out = callTool(t, cs, "search", map[string]any{"query": "checkout", "category": "transcript"})
	if rs := out["results"].([]any); len(rs) != 1 || rs[0].(map[string]any)["kind"] != "chunk" {
		t.Errorf("category transcript: %v", out["results"])
	}
}

// lineBody returns n bytes of 64-byte log lines: with a head size and a
// part size that are multiples of 64, every cut falls exactly at the
// limit: after store.HeadSize bytes, then every store.PartSize bytes.
func lineBody(n int) string {
	words := strings.Fields("checkout payments gateway retry latency spike region rollback deploy canary timeout queue")
	var b strings.Builder
	b.Grow(n + 64)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%-63.63s\n", fmt.Sprintf("%d %s %s tr-%x", i, words[i%len(words)], words[(i*7)%len(words)], i*2654435761))
	}
	return b.String()[:n]
}

// plantedBody is n bytes of lines with bigpayload.PlantedTerms at its
// start, across the cut between the parts in its middle and at its end
// (bigpayload.Plant).
func plantedBody(n int) (string, []string) {
	b := []byte(lineBody(n))
	terms := bigpayload.Plant(b, store.HeadSize, store.PartSize)
	return string(b), terms
}

// TestBigBodies: terms at the start, across a cut in the middle and at
// the end of bodies of 1 KB, 1 MiB and 64 MiB are found by search, each
// hit's offset leads get_event to its term, and paging get_event from 0
// to the end gives back the stored text and raw response byte for byte.
func TestBigBodies(t *testing.T) {
	for _, size := range []struct {
		name string
		n    int
	}{{"1KB", 1000}, {"1MiB", 1 << 20}, {"1MiB+64KiB", 1<<20 + 64<<10}, {"64MiB", 64 << 20}} {
		t.Run(size.name, func(t *testing.T) {
			if size.n > 8<<20 && testing.Short() {
				t.Skip("64 MiB: not with -short")
			}
			body, terms := plantedBody(size.n)
			quoted, _ := json.Marshal(body)
			big := abi.Event{TimeMS: now.Add(-time.Minute).UnixMilli(), Session: "s1", Harness: "claude-code", HookEvent: "PostToolUse",
				Category: "mcp", Server: "grafana", Tool: "mcp__grafana__query", Response: `{"content":[{"type":"text","text":` + string(quoted) + `}]}`,
				Text: body, ResponseBytes: len(quoted) + 40, Truncated: true}
			evs := corpus()
			cs := session(t, append(evs, big))
			id := float64(len(evs) + 1)
			for _, term := range terms {
				res, out := callTool(t, cs, "search", map[string]any{"query": term})
				checkMeta(t, "search "+term, res, out)
				results, _ := out["results"].([]any)
				if len(results) != 1 {
					t.Fatalf("search %s: %s", term, text(res))
				}
				hit := results[0].(map[string]any)
				if hit["id"] != id || !strings.Contains(hit["snippet"].(string), term) {
					t.Fatalf("search %s: %v", term, hit)
				}
				_, page := callTool(t, cs, "get_event", map[string]any{"id": id, "offset": hit["offset"], "length": 100})
				if !strings.HasPrefix(page["body"].(string), term) {
					t.Errorf("get_event at offset %v of the %s hit: %q", hit["offset"], term, page["body"])
				}
			}
			for _, f := range []struct {
				raw    bool
				format string
				want   string
			}{{false, "text", big.Text}, {true, "json", big.Response}} {
				var got strings.Builder
				for off := 0; ; {
					res, out := callTool(t, cs, "get_event", map[string]any{"id": id, "offset": off, "length": MaxPage, "raw": f.raw})
					if res.IsError {
						t.Fatalf("get_event at %d: %s", off, text(res))
					}
					m := out["meta"].(map[string]any)
					if out["format"] != f.format || int(out["total_bytes"].(float64)) != len(f.want) || int(out["offset"].(float64)) != off {
						t.Fatalf("get_event at %d: format %v, total %v, offset %v", off, out["format"], out["total_bytes"], out["offset"])
					}
					if w := m["warnings"].([]any); len(w) == 0 || w[0].(map[string]any)["code"] != "BODY_TRUNCATED_AT_CAPTURE" {
						t.Fatalf("warnings %v", w)
					}
					got.WriteString(out["body"].(string))
					off = int(out["next_offset"].(float64))
					if off == len(f.want) {
						if m["results_truncated"] != (len(f.want) > MaxPage) {
							t.Errorf("last page: results_truncated %v", m["results_truncated"])
						}
						break
					}
				}
				if got.String() != f.want {
					t.Fatalf("raw=%v: paged %d bytes, want %d", f.raw, got.Len(), len(f.want))
				}
			}
			// get_context shows a preview of the head, not the whole body.
			_, out := callTool(t, cs, "get_context", map[string]any{"chunk_id": id, "direction": "before", "count": 1})
			if evs := out["events"].([]any); len(evs) != 2 || len(evs[1].(map[string]any)["preview"].(string)) > 310 {
				t.Errorf("get_context: %v", out["events"])
			}
		})
	}
}

// TestPage: get_event's pages start and end on character boundaries, and
// never stall on a character longer than the page.
func TestPage(t *testing.T) {
	body := "aé€𝄞b"
	read := func(off, n int64) (string, error) { return body[off:min(off+n, int64(len(body)))], nil }
	for _, tt := range []struct {
		offset, length     int64
		want               string
		wantStart, wantEnd int64
	}{
		{0, 100, body, 0, int64(len(body))},
		{0, 2, "a", 0, 1},
		{2, 100, "€𝄞b", 3, int64(len(body))}, // inside é: on to the next character
		{1, 1, "é", 1, 3},                    // longer than the page: whole
		{6, 3, "𝄞", 6, 10},
		{int64(len(body)), 10, "", int64(len(body)), int64(len(body))},
	} {
		got, start, end, err := page(read, tt.offset, tt.length)
		if err != nil || got != tt.want || start != tt.wantStart || end != tt.wantEnd {
			t.Errorf("page(%d, %d) = %q %d-%d %v, want %q %d-%d", tt.offset, tt.length, got, start, end, err, tt.want, tt.wantStart, tt.wantEnd)
		}
	}
}

// TestBigBodyTimings measures search and get_event calls, each opening
// the store as ctxhook mcp does, against a store holding bodies of 1 KB,
// 1 MiB, 10 MiB and 64 MiB. Run it with CTXHOOK_TIMINGS=1.
func TestBigBodyTimings(t *testing.T) {
	if os.Getenv("CTXHOOK_TIMINGS") == "" {
		t.Skip("set CTXHOOK_TIMINGS=1")
	}
	sizes := []int{1000, 1 << 20, 10 << 20, 64 << 20}
	var evs []abi.Event
	for i, n := range sizes {
		body := []byte(lineBody(n))
		copy(body[n-60:], fmt.Sprintf(" zqend%d ", i))
		quoted, _ := json.Marshal(string(body))
		evs = append(evs, abi.Event{TimeMS: now.UnixMilli(), Session: "s1", Harness: "claude-code", HookEvent: "PostToolUse",
			Category: "mcp", Server: "grafana", Tool: "mcp__grafana__query", Text: string(body),
			Response: `{"content":[{"type":"text","text":` + string(quoted) + `}]}`})
	}
	cs := session(t, evs)
	timed := func(what string, n int, args func(i int) (string, map[string]any)) {
		t.Helper()
		start := time.Now()
		for i := range n {
			name, a := args(i)
			if res, _ := callTool(t, cs, name, a); res.IsError {
				t.Fatalf("%s: %s", what, text(res))
			}
		}
		t.Logf("%-52s %v per call", what, (time.Since(start) / time.Duration(n)).Round(10*time.Microsecond))
	}
	for i, n := range sizes {
		timed(fmt.Sprintf("search the last term of %d bytes", n), 10, func(k int) (string, map[string]any) {
			return "search", map[string]any{"query": fmt.Sprintf("zqend%d", i), "limit": 1 + k} // no answer cache
		})
		for _, length := range []int{DefaultPage, MaxPage} {
			timed(fmt.Sprintf("get_event %d bytes, pages of %d", n, length), 20, func(k int) (string, map[string]any) {
				return "get_event", map[string]any{"id": i + 1, "offset": k * n / 20, "length": length}
			})
		}
	}
}

// TestKeptStore: one connection serves the calls, sees what a writer
// adds, and is opened again when the store file is replaced (purged and
// created anew) or removed.
func TestKeptStore(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ctxhook.db")
	write := func(text string) {
		st, err := store.Open(db, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		e := corpus()[0]
		e.Text, e.Response, e.Key = text, `[{"type":"text","text":"`+text+`"}]`, "e"+strings.Repeat("1", 15)+text[:1]
		if _, err := st.Apply([]abi.Event{e}, nil); err != nil {
			t.Fatal(err)
		}
	}
	write("alpha zebra-first")
	srv := New(Options{DB: db, Version: "test", Now: func() time.Time { return now }})
	cs := connectTo(t, srv, "")
	total := func(q string) float64 {
		_, out := callTool(t, cs, "search", map[string]any{"query": q})
		m, _ := out["meta"].(map[string]any)
		n, _ := m["results_total"].(float64)
		return n
	}
	if total("zebra-first") != 1 {
		t.Fatal("first event not found")
	}
	kept := srv.st
	write("beta zebra-second") // a writer adds to the same file
	if total("zebra-second") != 1 || srv.st != kept {
		t.Fatalf("the kept connection did not see the new event, or was not kept")
	}
	os.Remove(db)
	os.Remove(db + "-wal")
	os.Remove(db + "-shm")
	if total("zebra-first") != 0 || srv.st != nil {
		t.Fatal("a removed store still answered")
	}
	write("gamma zebra-third") // a new file at the same path
	if total("zebra-third") != 1 || total("zebra-first") != 0 {
		t.Fatal("the new store file was not read")
	}
}

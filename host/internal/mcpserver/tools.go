package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/spool"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/modeltext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SearchIn is search's input.
type SearchIn struct {
	Query    string `json:"query" jsonschema:"words, identifiers (CVX-5909), paths or code fragments to find"`
	Session  string `json:"session,omitempty" jsonschema:"only this agent session"`
	Server   string `json:"server,omitempty" jsonschema:"only this MCP server"`
	Category string `json:"category,omitempty" jsonschema:"only this category: mcp, file_read, file_edit, shell, web, search, subagent, prompt, session, error, tool"`
	Since    string `json:"since,omitempty" jsonschema:"only events at or after: RFC 3339 time, a date (2026-11-22), or an age (90m, 24h, 7d)"`
	Until    string `json:"until,omitempty" jsonschema:"only events before: same forms as since"`
	Limit    int    `json:"limit,omitempty" jsonschema:"results to return, 1 to 50 (default 10)"`
}

// Hit is one search result.
type Hit struct {
	Kind          string   `json:"kind" jsonschema:"event (a captured tool call or prompt), chunk (one turn of a session transcript) or shared (an event of the shared store: yours from another machine, or a teammate's shared one)"`
	Ref           string   `json:"ref" jsonschema:"what to pass to get_event or get_context: the event id, c and the chunk id, or s and the shared event's id"`
	ID            int64    `json:"id" jsonschema:"event id (or chunk id, for kind chunk)"`
	Key           string   `json:"key,omitempty" jsonschema:"event key (also accepted by get_event)"`
	Time          string   `json:"time"`
	Session       string   `json:"session"`
	Harness       string   `json:"harness"`
	Category      string   `json:"category"`
	Tool          string   `json:"tool,omitempty"`
	Server        string   `json:"server,omitempty"`
	ResponseBytes int      `json:"response_bytes"`
	Snippet       string   `json:"snippet" jsonschema:"text where most of the query's terms meet, JSON escapes undone"`
	Offset        int64    `json:"offset" jsonschema:"byte offset of the match in the body: get_event with this offset reads on from it"`
	Score         float64  `json:"score" jsonschema:"relevance: the share of the query's rarity-weighted terms held, their BM25 and closeness, and hints"`
	Confidence    float64  `json:"confidence" jsonschema:"score relative to the best possible, 0 to 1"`
	Missing       []string `json:"missing,omitempty" jsonschema:"the query's terms this result does not hold (a partial match)"`
}

// SearchOut is search's output.
type SearchOut struct {
	Results []Hit `json:"results"`
	Meta    Meta  `json:"meta"`
}

func (s *Server) search(ctx context.Context, req *mcp.CallToolRequest, in SearchIn) (*mcp.CallToolResult, SearchOut, error) {
	q := store.ParseQuery(in.Query)
	if q.Empty() {
		return nil, SearchOut{}, errors.New("query is empty: pass the words, identifiers or paths to look for")
	}
	if q.Check() != nil {
		return nil, SearchOut{}, fmt.Errorf("query too long: at most %d bytes and %d terms; search for its most distinctive words or identifiers", store.MaxQueryBytes, store.MaxQueryTerms)
	}
	limit, err := checkLimit(in.Limit, DefaultLimit, MaxLimit, "narrow the query, or filter by server or session")
	if err != nil {
		return nil, SearchOut{}, err
	}
	since, err := parseTime(in.Since, s.opts.Now())
	if err != nil {
		return nil, SearchOut{}, fmt.Errorf("since: %v", err)
	}
	until, err := parseTime(in.Until, s.opts.Now())
	if err != nil {
		return nil, SearchOut{}, fmt.Errorf("until: %v", err)
	}
	return call(s, "search", in, func(o *SearchOut) *Meta { return &o.Meta }, func(st *store.Store, out *SearchOut) (string, error) {
		out.Results = []Hit{}
		opts := store.SearchOptions{Session: in.Session, Server: in.Server,
			Category: in.Category, SinceMS: since, UntilMS: until, Limit: limit}
		var res store.Result
		total := 0
		if st != nil {
			if res, total, err = searchStore(st, q, opts, out); err != nil {
				return "", err
			}
		}
		n, unmatched := s.searchShared(q, opts, res, out)
		total += n
		res.Unmatched = unmatched
		if st == nil && len(out.Results) == 0 {
			return "No events captured yet.", nil
		}
		if len(out.Results) > limit {
			out.Results = out.Results[:limit]
		}
		return searchText(out, res, in.Query, total), nil
	})
}

// searchStore searches st: events and transcript turns, merged by
// score, into out.Results; it returns the events' result and the total.
func searchStore(st *store.Store, q store.Query, opts store.SearchOptions, out *SearchOut) (store.Result, int, error) {
	res, err := st.SearchResult(q, opts)
	if err != nil {
		return res, 0, err
	}
	total := res.Total
	chunks, chunkTotal, err := st.SearchChunks(q, opts)
	if err != nil {
		return res, 0, err
	}
	total += chunkTotal
	res.HeldBy(chunks)
	for _, h := range res.Hits {
		out.Results = append(out.Results, hitOf(h, "event", ""))
	}
	for _, h := range chunks {
		c := h.Chunk
		out.Results = append(out.Results, Hit{Kind: "chunk", Ref: "c" + strconv.FormatInt(c.ID, 10), ID: c.ID,
			Time: rfc3339(c.TimeMS), Session: c.Session, Harness: c.Harness, Category: store.CategoryTranscript,
			ResponseBytes: c.Bytes, Snippet: h.Snippet, Offset: h.Offset, Score: round(h.Score, 6),
			Confidence: round(math.Min(1, h.Score/store.MaxScore), 3)})
	}
	// Both rankings are reciprocal-rank fusions on the same scale.
	sort.SliceStable(out.Results, func(i, j int) bool { return out.Results[i].Score > out.Results[j].Score })
	return res, total, nil
}

// hitOf is an event's search hit; its ref is prefix and its id.
func hitOf(h store.Hit, kind, prefix string) Hit {
	e := h.Event
	return Hit{Kind: kind, Ref: prefix + strconv.FormatInt(e.ID, 10), ID: e.ID, Key: e.Key,
		Time: rfc3339(e.TimeMS), Session: e.Session, Harness: e.Harness, Category: e.Category, Tool: e.Tool,
		Server: e.Server, ResponseBytes: e.ResponseBytes, Snippet: h.Snippet, Offset: h.Offset, Score: round(h.Score, 6),
		Confidence: round(math.Min(1, h.Score/store.MaxScore), 3), Missing: h.Missing}
}

// searchText is search's answer to the model: a line per result, the
// note on partial results, and the meta's counts and warnings.
func searchText(out *SearchOut, res store.Result, query string, total int) string {
	var b strings.Builder
	for _, h := range out.Results {
		fmt.Fprintf(&b, "#%s %s %s %s (%d bytes, session %s)\n  %s\n", h.Ref, h.Time, h.Category,
			name(h.Tool), h.ResponseBytes, modeltext.Name(h.Session), modeltext.Escape(h.Snippet, 0))
	}
	note := res.Note()
	if note != "" && len(out.Results) > 0 && out.Results[0].Kind == "event" {
		fmt.Fprintf(&b, "%s\n", note)
	}
	if len(res.Unmatched) > 0 {
		out.Meta.Warnings = append(out.Meta.Warnings, Warning{"TERMS_UNMATCHED",
			"no event holds " + strings.Join(res.Unmatched, ", ") + ": the results hold the other terms", "info"})
	}
	if len(out.Results) == 0 {
		fmt.Fprintf(&b, "No events match %q.", query)
		if len(res.Unmatched) > 0 {
			fmt.Fprintf(&b, " In no event: %s.", strings.Join(res.Unmatched, ", "))
		}
	} else {
		b.WriteString("get_event <ref> returns a response (or transcript turn) in full; get_context <ref> shows what came around it.")
	}
	out.Meta.ResultsTotal, out.Meta.ResultsReturned = max(total, len(out.Results)), len(out.Results)
	out.Meta.ResultsTruncated = total > len(out.Results)
	if total >= store.MaxTotal {
		out.Meta.Warnings = append(out.Meta.Warnings, Warning{"RESULTS_TOTAL_CAPPED",
			fmt.Sprintf("at least %d events match; narrow the query or filter by session, server or time", store.MaxTotal), "info"})
	}
	return b.String()
}

// ContextIn is get_context's input.
type ContextIn struct {
	ChunkID   any    `json:"chunk_id" jsonschema:"a search result's ref: an event id (a number), an event key, c and a transcript chunk id (c12), or s and a shared event's id (s7)"`
	Direction string `json:"direction,omitempty" jsonschema:"before, after or both (default both)"`
	Count     int    `json:"count,omitempty" jsonschema:"events on each requested side, 1 to 10 (default 3)"`
}

// ContextEvent is one event in get_context's answer.
type ContextEvent struct {
	ID            int64  `json:"id"`
	Time          string `json:"time"`
	Category      string `json:"category"`
	HookEvent     string `json:"hook_event"`
	Tool          string `json:"tool,omitempty"`
	Server        string `json:"server,omitempty"`
	Args          string `json:"args,omitempty"`
	ResponseBytes int    `json:"response_bytes"`
	Preview       string `json:"preview" jsonschema:"the start of the response's text"`
	Anchor        bool   `json:"anchor" jsonschema:"true for the event asked about"`
}

// ContextOut is get_context's output.
type ContextOut struct {
	Session string         `json:"session"`
	Project string         `json:"project" jsonschema:"the working directory of the session"`
	Events  []ContextEvent `json:"events" jsonschema:"in order"`
	Meta    Meta           `json:"meta"`
}

func (s *Server) getContext(ctx context.Context, req *mcp.CallToolRequest, in ContextIn) (*mcp.CallToolResult, ContextOut, error) {
	ref, err := eventRef(in.ChunkID, "chunk_id")
	if err != nil {
		return nil, ContextOut{}, err
	}
	count, err := checkLimit(in.Count, 3, MaxContext, "narrow the query")
	if err != nil {
		return nil, ContextOut{}, fmt.Errorf("count: %v", err)
	}
	before, after := count, count
	switch in.Direction {
	case "", "both":
	case "before":
		after = 0
	case "after":
		before = 0
	default:
		return nil, ContextOut{}, fmt.Errorf("direction must be before, after or both, not %q", in.Direction)
	}
	return call(s, "get_context", in, func(o *ContextOut) *Meta { return &o.Meta }, func(st *store.Store, out *ContextOut) (string, error) {
		if _, ok := sharedRef(ref); ok {
			return s.sharedContext(ref, before, after, out)
		}
		if st == nil && !s.keyInShared(ref) {
			return "", fmt.Errorf("no event %s: nothing has been captured yet", ref)
		}
		if id, ok := chunkRef(ref); ok {
			return chunkContext(st, id, before, after, out)
		}
		var anchor store.Event
		err := store.ErrNotFound
		if st != nil {
			anchor, err = st.EventByRef(ref)
		}
		if isNotFound(err) && s.keyInShared(ref) {
			return s.sharedContext(ref, before, after, out)
		}
		if err != nil {
			return "", notFound(err, ref)
		}
		evs, err := st.Around(anchor.ID, before, after)
		if err != nil {
			return "", err
		}
		return eventContext(anchor, evs, "", out), nil
	})
}

// keyInShared reports whether an event key (e and hex digits) not found
// here is looked for in the shared store: a pointer given on another of
// the user's machines.
func (s *Server) keyInShared(ref string) bool {
	return s.sh != nil && strings.HasPrefix(ref, "e")
}

// sharedContext is get_context for an event of the shared store.
func (s *Server) sharedContext(ref string, before, after int, out *ContextOut) (string, error) {
	anchor, sh, err := s.sharedEvent(ref, &out.Meta.Warnings)
	if err != nil {
		return "", notFound(err, ref)
	}
	evs, err := sh.Around(anchor.ID, before, after)
	if err != nil {
		s.sh.failed(err, s.opts.Now())
		return "", err
	}
	return eventContext(anchor, evs, "s", out), nil
}

// eventContext fills out with evs around anchor and returns the text;
// prefix marks the ids' store ("s" for the shared one).
func eventContext(anchor store.Event, evs []store.Event, prefix string, out *ContextOut) string {
	out.Session, out.Project = anchor.Session, anchor.Cwd
	out.Events = []ContextEvent{}
	var b strings.Builder
	fmt.Fprintf(&b, "session %s, project %s\n", modeltext.Name(anchor.Session), path(anchor.Cwd))
	for _, e := range evs {
		ce := ContextEvent{ID: e.ID, Time: rfc3339(e.TimeMS), Category: e.Category, HookEvent: e.HookEvent,
			Tool: e.Tool, Server: e.Server, Args: e.Args, ResponseBytes: e.ResponseBytes,
			Preview: preview(e.Body(), 300), Anchor: e.ID == anchor.ID}
		out.Events = append(out.Events, ce)
		mark := " "
		if ce.Anchor {
			mark = ">"
		}
		fmt.Fprintf(&b, "%s #%s%d %s %s %s %s\n    %s\n", mark, prefix, e.ID, ce.Time, e.Category, name(e.Tool), modeltext.Escape(e.Args, 0), modeltext.Escape(ce.Preview, 0))
	}
	out.Meta.ResultsTotal, out.Meta.ResultsReturned = len(evs), len(evs)
	return b.String()
}

// EventIn is get_event's input.
type EventIn struct {
	ID     any  `json:"id" jsonschema:"a search result's ref: event id (a number), event key (e and 16 hex digits, from a shaped response or a hint), c and a transcript chunk id, or s and a shared event's id"`
	Offset int  `json:"offset,omitempty" jsonschema:"byte offset into the body (default 0)"`
	Length int  `json:"length,omitempty" jsonschema:"bytes to return, up to 262144 (default 32768)"`
	Raw    bool `json:"raw,omitempty" jsonschema:"return the stored response as captured (JSON) instead of its readable text"`
}

// EventInfo describes a stored event.
type EventInfo struct {
	ID            int64  `json:"id"`
	Shared        bool   `json:"shared,omitempty" jsonschema:"true for an event of the shared store (ref s and the id)"`
	Key           string `json:"key,omitempty"`
	Time          string `json:"time"`
	Session       string `json:"session"`
	Harness       string `json:"harness"`
	HookEvent     string `json:"hook_event"`
	Category      string `json:"category"`
	Tool          string `json:"tool,omitempty"`
	Server        string `json:"server,omitempty"`
	Args          string `json:"args,omitempty"`
	Project       string `json:"project,omitempty"`
	ResponseBytes int    `json:"response_bytes" jsonschema:"size of the response when captured"`
	Redactions    int    `json:"redactions"`
}

// EventOut is get_event's output.
type EventOut struct {
	Event      EventInfo `json:"event"`
	Body       string    `json:"body" jsonschema:"the requested part of the body"`
	Format     string    `json:"format" jsonschema:"text (the response's readable text) or json (as captured)"`
	Offset     int       `json:"offset"`
	Length     int       `json:"length" jsonschema:"bytes in body"`
	TotalBytes int       `json:"total_bytes" jsonschema:"bytes in the whole body"`
	NextOffset int       `json:"next_offset" jsonschema:"offset of the next page; equal to total_bytes at the end"`
	Meta       Meta      `json:"meta"`
}

func (s *Server) getEvent(ctx context.Context, req *mcp.CallToolRequest, in EventIn) (*mcp.CallToolResult, EventOut, error) {
	ref, err := eventRef(in.ID, "id")
	if err != nil {
		return nil, EventOut{}, err
	}
	if in.Offset < 0 {
		return nil, EventOut{}, fmt.Errorf("offset must be 0 or more, not %d", in.Offset)
	}
	length, err := checkLimit(in.Length, DefaultPage, MaxPage, "read on with offset: each page gives next_offset")
	if err != nil {
		return nil, EventOut{}, fmt.Errorf("length: %v", err)
	}
	return call(s, "get_event", in, func(o *EventOut) *Meta { return &o.Meta }, func(st *store.Store, out *EventOut) (string, error) {
		f, err := s.findEvent(st, ref, in.Raw, &out.Meta.Warnings)
		if err == nil {
			var text string
			if text, err = serveEvent(f, in, length, out); err == nil {
				return text, nil
			}
		}
		// A store that fails part way (damaged, or rewritten under this
		// read by a writer's checkpoint) while the event still waits in
		// the spool: the spool's copy is the same event. Not found was
		// already looked for in the spool (findEvent).
		if isNotFound(err) {
			return "", err
		}
		if ev, ok := s.spoolCopy(ref); ok {
			*out = EventOut{Meta: out.Meta}
			return serveEvent(spoolFound(ev, in.Raw), in, length, out)
		}
		return "", err
	})
}

// serveEvent fills out with the page of f that in asks for, and returns
// the text the model reads.
func serveEvent(f found, in EventIn, length int, out *EventOut) (string, error) {
	e, read := f.e, f.read
	field, head, total, format := store.FieldText, e.Text, e.TextSize, "text"
	if in.Raw || e.TextSize == 0 {
		field, head, total, format = store.FieldResponse, e.Response, e.ResponseSize, "json"
		if e.TextSize == 0 && !strings.HasPrefix(strings.TrimSpace(head), "{") && !strings.HasPrefix(strings.TrimSpace(head), "[") {
			format = "text"
		}
	}
	if read == nil {
		read = func(off, n int64) (string, error) { return f.bodies(e.ID, field, off, n) }
	}
	if int64(in.Offset) > total {
		return "", fmt.Errorf("offset %d is past the end of the body (%d bytes)", in.Offset, total)
	}
	body, start, end, err := page(read, int64(in.Offset), int64(length))
	if err != nil {
		return "", err
	}
	out.Event = EventInfo{ID: e.ID, Shared: f.shared, Key: e.Key, Time: rfc3339(e.TimeMS), Session: e.Session, Harness: e.Harness,
		HookEvent: e.HookEvent, Category: e.Category, Tool: e.Tool, Server: e.Server, Args: e.Args, Project: e.Cwd,
		ResponseBytes: e.ResponseBytes, Redactions: e.Redactions}
	out.Body, out.Format = body, format
	out.Offset, out.Length, out.TotalBytes, out.NextOffset = int(start), len(body), int(total), int(end)
	out.Meta.ResultsTotal, out.Meta.ResultsReturned = 1, 1
	out.Meta.ResultsTruncated = start > 0 || end < total
	if e.Truncated {
		out.Meta.Warnings = append(out.Meta.Warnings, Warning{"BODY_TRUNCATED_AT_CAPTURE",
			"the response was larger than capture.max_event_bytes and was cut when stored", "info"})
	}
	var b strings.Builder
	if e.ID == 0 {
		fmt.Fprintf(&b, "event %s (not in the store yet)", modeltext.Name(e.Key))
	} else if f.shared {
		fmt.Fprintf(&b, "event #s%d (shared store)", e.ID)
	} else {
		fmt.Fprintf(&b, "event #%d", e.ID)
	}
	fmt.Fprintf(&b, " %s %s, session %s, bytes %d-%d of %d", name(e.Tool), rfc3339(e.TimeMS), modeltext.Name(e.Session), start, end, total)
	if end < total {
		fmt.Fprintf(&b, " (next page: offset %d)", end)
	}
	b.WriteString("\n")
	b.WriteString(out.Body)
	return b.String(), nil
}

// found is an event get_event serves, and where its body is read.
type found struct {
	e store.Event
	// read, when set, reads the body to serve (the spool's copy, a
	// transcript chunk); else bodies reads the field asked for from the
	// store the event is in, a page at a time: a body stored in parts is
	// never loaded whole.
	read   func(off, n int64) (string, error)
	bodies func(id int64, f store.Field, off, n int64) (string, error)
	shared bool
}

// findEvent finds the event ref names: in the spool (not stored yet), a
// transcript chunk, this machine's store, or the shared store (a ref
// s<id>, or a key this machine does not hold). raw: serve the response
// as captured.
func (s *Server) findEvent(st *store.Store, ref string, raw bool, warn *[]Warning) (found, error) {
	if ev, ok := s.spooled(st, ref); ok {
		return spoolFound(ev, raw), nil
	}
	if _, ok := sharedRef(ref); ok || st == nil && s.keyInShared(ref) {
		return s.findShared(ref, warn)
	}
	if st == nil {
		return found{}, noEvent{ref, "nothing has been captured yet"}
	}
	if id, ok := chunkRef(ref); ok {
		c, err := st.ChunkByID(id)
		if err != nil {
			return found{}, notFound(err, ref)
		}
		e := store.Event{ID: c.ID, Event: abi.Event{TimeMS: c.TimeMS, Session: c.Session, Harness: c.Harness,
			HookEvent: "turn", Category: store.CategoryTranscript, Cwd: c.Cwd, Text: c.Text, Response: c.Text,
			ResponseBytes: c.Bytes, Redactions: c.Redactions}, ResponseSize: int64(len(c.Text)), TextSize: int64(len(c.Text))}
		return found{e: e, read: func(off, n int64) (string, error) { return c.Text[off:min(off+n, int64(len(c.Text)))], nil }}, nil
	}
	e, err := st.EventByRef(ref)
	if isNotFound(err) && s.keyInShared(ref) {
		return s.findShared(ref, warn)
	}
	if err != nil {
		return found{}, notFound(err, ref)
	}
	return found{e: e, bodies: st.ReadBody}, nil
}

// spoolFound is an event of the spool as get_event serves it. raw: the
// response as captured.
func spoolFound(ev abi.Event, raw bool) found {
	e := store.Event{Event: ev, ResponseSize: int64(len(ev.Response)), TextSize: int64(len(ev.Text))}
	body := ev.Text
	if raw || ev.Text == "" {
		body = ev.Response
	}
	return found{e: e, read: func(off, n int64) (string, error) {
		return body[min(off, int64(len(body))):min(off+n, int64(len(body)))], nil
	}}
}

// findShared is findEvent in the shared store.
func (s *Server) findShared(ref string, warn *[]Warning) (found, error) {
	e, sh, err := s.sharedEvent(ref, warn)
	if err != nil {
		return found{}, notFound(err, ref)
	}
	read := func(id int64, f store.Field, off, n int64) (string, error) {
		b, err := sh.ReadBody(id, f, off, n)
		if err != nil && !isNotFound(err) {
			s.sh.failed(err, s.opts.Now())
		}
		return b, err
	}
	return found{e: e, bodies: read, shared: true}, nil
}

// page reads about length bytes of a body from offset with read, its
// edges moved to character boundaries: the start forward past a
// character's continuation bytes, the end back before a character cut in
// two (a page holds at least one character when there is one). It
// returns the page and the offsets it starts and ends at.
func page(read func(off, n int64) (string, error), offset, length int64) (string, int64, int64, error) {
	buf, err := read(offset, length+2*utf8.UTFMax)
	if err != nil {
		return "", 0, 0, err
	}
	i := 0
	for offset > 0 && i < len(buf) && i < utf8.UTFMax-1 && !utf8.RuneStart(buf[i]) {
		i++
	}
	// buf ends at the body's end, or well past i+length.
	j := min(i+int(length), len(buf))
	for j < len(buf) && j > i && !utf8.RuneStart(buf[j]) {
		j--
	}
	if j == i && i < len(buf) {
		_, size := utf8.DecodeRuneInString(buf[i:])
		j = i + size
	}
	return buf[i:j], offset + int64(i), offset + int64(j), nil
}

// StatsIn is stats' input.
type StatsIn struct {
	Session string `json:"session,omitempty" jsonschema:"one agent session (default: all)"`
}

// StatsOut is stats' output.
type StatsOut struct {
	Session          string           `json:"session,omitempty"`
	Sessions         int64            `json:"sessions"`
	Events           int64            `json:"events"`
	MCPCalls         int64            `json:"mcp_calls"`
	BytesCaptured    int64            `json:"bytes_captured" jsonschema:"size of all captured responses"`
	BytesKeptOut     int64            `json:"bytes_kept_out_of_context" jsonschema:"bytes shaping kept out of the model's context"`
	RefetchesAvoided int64            `json:"refetches_avoided" jsonschema:"re-fetch hints after which no identical call ran"`
	RefetchHints     int64            `json:"refetch_hints" jsonschema:"repeated calls pointed at their stored answer"`
	TokensRelayed    int64            `json:"tokens_relayed"`
	TokensCaptured   int64            `json:"tokens_captured"`
	NudgesFired      int64            `json:"nudges_fired"`
	ResponsesShaped  int64            `json:"responses_shaped"`
	Redactions       int64            `json:"redactions"`
	ByCategory       map[string]int64 `json:"by_category"`
	ByServer         map[string]int64 `json:"by_server"`
	Meta             Meta             `json:"meta"`
}

func (s *Server) stats(ctx context.Context, req *mcp.CallToolRequest, in StatsIn) (*mcp.CallToolResult, StatsOut, error) {
	return call(s, "stats", in, func(o *StatsOut) *Meta { return &o.Meta }, func(st *store.Store, out *StatsOut) (string, error) {
		out.Session, out.ByCategory, out.ByServer = in.Session, map[string]int64{}, map[string]int64{}
		if st == nil {
			return "No events captured yet.", nil
		}
		x, err := st.Stats(in.Session)
		if err != nil {
			return "", err
		}
		if in.Session != "" && x.Events == 0 {
			return "", fmt.Errorf("no events for session %q", in.Session)
		}
		*out = StatsOut{Session: in.Session, Sessions: x.Sessions, Events: x.Events, MCPCalls: x.MCPCalls,
			BytesCaptured: x.BytesCaptured, BytesKeptOut: x.BytesKeptOut, RefetchesAvoided: x.RefetchesAvoided, RefetchHints: x.Tallies[abi.TallyRefetch],
			TokensRelayed: x.Tallies[abi.TallyRelayed], TokensCaptured: x.Tallies[abi.TallyCapture],
			NudgesFired: x.Tallies[abi.TallyNudges], ResponsesShaped: x.Tallies[abi.TallyShaped], Redactions: x.Redactions,
			ByCategory: x.ByCategory, ByServer: x.ByServer}
		out.Meta.ResultsTotal, out.Meta.ResultsReturned = 1, 1
		return fmt.Sprintf("%d events in %d sessions; %d MCP calls; %d bytes captured, %d kept out of context by shaping; "+
			"%d re-fetches avoided (%d hints); %d tokens relayed; %d nudges; %d secrets redacted.",
			out.Events, out.Sessions, out.MCPCalls, out.BytesCaptured, out.BytesKeptOut, out.RefetchesAvoided, out.RefetchHints,
			out.TokensRelayed, out.NudgesFired, out.Redactions), nil
	})
}

// chunkRef reads a transcript chunk reference, "c" and the chunk id.
func chunkRef(ref string) (int64, bool) { return prefixedID(ref, "c") }

// prefixedID reads a reference of prefix and a positive id.
func prefixedID(ref, prefix string) (int64, bool) {
	rest, ok := strings.CutPrefix(ref, prefix)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	return id, err == nil && id > 0
}

// chunkContext is get_context for a transcript chunk: the turns around it.
func chunkContext(st *store.Store, id int64, before, after int, out *ContextOut) (string, error) {
	cs, err := st.ChunksAround(id, before, after)
	if err != nil {
		return "", notFound(err, "c"+strconv.FormatInt(id, 10))
	}
	anchor := cs[0]
	for _, c := range cs {
		if c.ID == id {
			anchor = c
		}
	}
	out.Session, out.Project = anchor.Session, anchor.Cwd
	out.Events = []ContextEvent{}
	var b strings.Builder
	fmt.Fprintf(&b, "session %s, project %s (transcript)\n", modeltext.Name(anchor.Session), path(anchor.Cwd))
	for _, c := range cs {
		ce := ContextEvent{ID: c.ID, Time: rfc3339(c.TimeMS), Category: store.CategoryTranscript, HookEvent: "turn",
			ResponseBytes: c.Bytes, Preview: preview(c.Text, 300), Anchor: c.ID == id}
		out.Events = append(out.Events, ce)
		mark := " "
		if ce.Anchor {
			mark = ">"
		}
		fmt.Fprintf(&b, "%s #c%d %s turn\n    %s\n", mark, c.ID, ce.Time, modeltext.Escape(ce.Preview, 0))
	}
	out.Meta.ResultsTotal, out.Meta.ResultsReturned = len(cs), len(cs)
	return b.String(), nil
}

// checkLimit applies a default to 0 and refuses what is out of range,
// saying how to get more within it (more is what a too large value wants).
func checkLimit(n, def, max int, more string) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < 0:
		return 0, fmt.Errorf("limit must be between 1 and %d, not %d", max, n)
	case n > max:
		return 0, fmt.Errorf("limit must be between 1 and %d, not %d (%s)", max, n, more)
	}
	return n, nil
}

// eventRef turns an id argument (a JSON number or string) into a store
// reference.
func eventRef(v any, field string) (string, error) {
	switch t := v.(type) {
	case float64:
		if t < 1 || t != math.Trunc(t) {
			return "", fmt.Errorf("%s must be a positive event id or an event key, not %v", field, t)
		}
		return strconv.FormatInt(int64(t), 10), nil
	case string:
		t = strings.TrimPrefix(strings.TrimSpace(t), "#")
		if t == "" {
			return "", fmt.Errorf("%s is empty: pass an event id from search, or a key like e1a2b3c4d5e6f7a8b", field)
		}
		return t, nil
	case nil:
		return "", fmt.Errorf("%s is required: pass an event id from search, or a key like e1a2b3c4d5e6f7a8b", field)
	}
	return "", fmt.Errorf("%s must be a number or a string, not %T", field, v)
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

func notFound(err error, ref string) error {
	if errors.Is(err, store.ErrNotFound) {
		return noEvent{ref, "ids come from search results, keys from shaped responses and hints"}
	}
	return err
}

// noEvent is store.ErrNotFound as the model reads it: still not found
// to isNotFound, so a caller that has looked everywhere does not look
// again (get_event's spool fallback).
type noEvent struct{ ref, why string }

func (e noEvent) Error() string { return "no event " + e.ref + ": " + e.why }

func (noEvent) Unwrap() error { return store.ErrNotFound }

// parseTime reads an RFC 3339 time, a date, or an age ("90m", "24h", "7d").
func parseTime(s string, now time.Time) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UnixMilli(), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t.UnixMilli(), nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(d); err == nil && n >= 0 {
			return now.Add(-time.Duration(n) * 24 * time.Hour).UnixMilli(), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d).UnixMilli(), nil
	}
	return 0, fmt.Errorf("%q is not a time: use RFC 3339 (2026-11-22T10:00:00Z), a date (2026-11-22) or an age (90m, 24h, 7d)", s)
}

func rfc3339(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339) }

func round(f float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(f*p) / p
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func preview(s string, n int) string {
	if len(s) > 64*n { // plenty to fill n bytes; a head can be a MiB
		cut := 64 * n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// name is a stored tool name as a listing for the model shows it: escaped
// (a name that held a newline would start a listing line of its own), "-"
// when there is none.
func name(s string) string { return orDash(modeltext.Name(s)) }

// path is a stored directory as a listing shows it, escaped and bounded.
func path(s string) string { return orDash(modeltext.Escape(s, 300)) }

// spooled returns the event a key names when it is not in the store (st,
// nil when the store cannot be read) but waits in the spool: a pointer
// names its event before the writer stores it, and while the store is
// damaged (it may open and fail on the read). The store is asked again
// after the spool, for an event that moved in between.
func (s *Server) spooled(st *store.Store, ref string) (abi.Event, bool) {
	if s.opts.Spool == "" || !strings.HasPrefix(ref, "e") {
		return abi.Event{}, false
	}
	inStore := func() bool {
		_, err := st.EventByRef(ref) // a damaged store may open, and fail here
		return err == nil
	}
	if st != nil && inStore() {
		return abi.Event{}, false
	}
	ev, ok := s.spoolCopy(ref)
	if ok && st != nil && inStore() {
		return abi.Event{}, false
	}
	return ev, ok
}

// spoolCopy is the event a key names in the spool, whether or not the
// store holds it too.
func (s *Server) spoolCopy(ref string) (abi.Event, bool) {
	if s.opts.Spool == "" || !strings.HasPrefix(ref, "e") {
		return abi.Event{}, false
	}
	return spool.Find(s.opts.Spool, ref)
}

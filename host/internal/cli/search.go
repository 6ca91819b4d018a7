package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/host/store"
)

func runSearch(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "search", "[flags] <query>",
		"Full-text search over captured events and indexed transcript turns. No term is required: results hold the most,\nthe rarest first, and name the terms they lack; \"quote phrases\".\nTicket ids, paths and identifiers match (CVX-5909, users.ts, UserBy).")
	session := flags.String("session", "", "only this session id")
	server := flags.String("server", "", "only this MCP server")
	limit := flags.Int("limit", 10, "at most this many results (1-200)")
	asJSON := flags.Bool("json", false, "print JSON")
	pos, code, ok := parse(flags, args)
	if !ok {
		return code
	}
	q := store.ParseQuery(strings.Join(pos, " "))
	if q.Empty() {
		return usageError(env, "search", "needs a query, e.g. ctxhook search CVX-5909")
	}
	if *limit < 1 || *limit > 200 {
		return usageError(env, "search", "--limit must be between 1 and 200, not %d", *limit)
	}
	if errors.Is(q.Check(), store.ErrQueryTooLong) {
		return usageError(env, "search", "the query is too long: at most %d bytes and %d terms", store.MaxQueryBytes, store.MaxQueryTerms)
	}
	st, code := openStore(env)
	if st == nil {
		return code
	}
	defer st.Close()
	res, err := st.SearchResult(q, store.SearchOptions{Session: *session, Server: *server, Limit: *limit})
	if err != nil {
		return fail(env, "%v", err)
	}
	turns, totalTurns, err := st.SearchChunks(q, store.SearchOptions{Session: *session, Server: *server, Limit: *limit})
	if err != nil {
		return fail(env, "%v", err)
	}
	res.HeldBy(turns)
	if *asJSON {
		return printSearchJSON(env, q, res, turns, totalTurns)
	}
	return printSearch(env, q, res, turns, totalTurns)
}

// printSearchJSON prints a search's hits and turns as one JSON object.
func printSearchJSON(env Env, q store.Query, res store.Result, turns []store.ChunkHit, totalTurns int) int {
	hits, totalEvents := res.Hits, res.Total
	type jsonHit struct {
		Kind     string   `json:"kind"`
		Ref      string   `json:"ref"`
		ID       int64    `json:"id"`
		TimeMS   int64    `json:"ts_ms"`
		Session  string   `json:"session"`
		Category string   `json:"category"`
		Tool     string   `json:"tool,omitempty"`
		Server   string   `json:"server,omitempty"`
		Bytes    int64    `json:"response_bytes"`
		Score    float64  `json:"score"`
		Snippet  string   `json:"snippet"`
		Offset   int64    `json:"offset"`            // of the match in the body
		Missing  []string `json:"missing,omitempty"` // terms it does not hold
	}
	out := make([]jsonHit, 0, len(hits))
	for _, h := range hits {
		e := h.Event
		out = append(out, jsonHit{"event", strconv.FormatInt(e.ID, 10), e.ID, e.TimeMS, e.Session, e.Category, e.Tool, e.Server, int64(e.ResponseBytes), h.Score, h.Snippet, h.Offset, h.Missing})
	}
	for _, h := range turns {
		c := h.Chunk
		out = append(out, jsonHit{"chunk", "c" + strconv.FormatInt(c.ID, 10), c.ID, c.TimeMS, c.Session, store.CategoryTranscript, "", "", int64(c.Bytes), h.Score, h.Snippet, h.Offset, nil})
	}
	return writeJSON(env, struct {
		Query       string    `json:"query"`
		Total       int       `json:"total"`
		TotalEvents int       `json:"total_events"`
		TotalTurns  int       `json:"total_turns"`
		Returned    int       `json:"returned"`
		Truncated   bool      `json:"truncated"`
		Results     []jsonHit `json:"results"`
		Unmatched   []string  `json:"unmatched,omitempty"`
	}{strings.Join(q.Terms, " "), totalEvents + totalTurns, totalEvents, totalTurns, len(out), len(out) < totalEvents+totalTurns, out, res.Unmatched})
}

// printSearch prints a search's hits and turns for a person.
func printSearch(env Env, q store.Query, res store.Result, turns []store.ChunkHit, totalTurns int) int {
	hits, totalEvents := res.Hits, res.Total
	// Snippets are captured text, which is hostile: escape sequences in it
	// are printed visibly, not run by the terminal.
	w := platform.NewTermWriter(env.Stdout)
	defer w.Flush()
	if len(hits) == 0 && len(turns) == 0 {
		fmt.Fprintf(w, "no events match %q\n", strings.Join(q.Terms, " "))
		if len(res.Unmatched) > 0 {
			fmt.Fprintf(w, "in no event: %s\n", strings.Join(res.Unmatched, ", "))
		}
		return 0
	}
	if note := res.Note(); note != "" && len(hits) > 0 {
		fmt.Fprintf(w, "%s\n\n", note)
	}
	for _, h := range hits {
		e := h.Event
		fmt.Fprintf(w, "#%-5d %s  %-9s %-32s session %s\n       %s\n",
			e.ID, time.UnixMilli(e.TimeMS).Format("2006-01-02 15:04:05"), e.Category, label(e), shortID(e.Session), h.Snippet)
	}
	if len(turns) > 0 {
		fmt.Fprintln(w, "\nTranscript turns:")
	}
	for _, h := range turns {
		c := h.Chunk
		fmt.Fprintf(w, "#c%-4d %s  %-9s %-32s session %s\n       %s\n",
			c.ID, time.UnixMilli(c.TimeMS).Format("2006-01-02 15:04:05"), store.CategoryTranscript, c.Harness, shortID(c.Session), h.Snippet)
	}
	shown, total := len(hits)+len(turns), totalEvents+totalTurns
	if shown < total {
		fmt.Fprintf(w, "\n%d of %s shown: --limit (up to 200) or more terms for the rest. In full: ctxhook show <id>\n",
			shown, plural(int64(total), "result", "results"))
	} else {
		fmt.Fprintf(w, "\n%s. In full: ctxhook show <id>\n", plural(int64(total), "result", "results"))
	}
	return 0
}

func label(e store.Event) string {
	switch {
	case e.Server != "":
		return e.Server + "/" + strings.TrimPrefix(e.Tool, "mcp__"+e.Server+"__")
	case e.Tool != "":
		return e.Tool
	default:
		return e.HookEvent
	}
}

// openStore opens the store read-only for the reading commands, with a
// helpful message when nothing has been captured yet.
func openStore(env Env) (*store.Store, int) { return openStoreWith(env, store.Options{ReadOnly: true}) }

func openStoreWith(env Env, o store.Options) (*store.Store, int) {
	p, err := resolvePaths(env)
	if err != nil {
		return nil, fail(env, "%v", err)
	}
	if _, err := os.Stat(p.DB()); err != nil && !o.ReadOnly {
		return nil, fail(env, "no store at %s yet: nothing has been captured. 'ctxhook install <harness>' wires the capture", p.DB())
	}
	st, err := store.Open(p.DB(), o)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fail(env, "no store at %s yet: nothing has been captured. 'ctxhook install <harness>' wires the capture; the demo's store is its own (see 'ctxhook demo --keep')", p.DB())
		}
		return nil, fail(env, "%v", err)
	}
	return st, 0
}

func writeJSON(env Env, v any) int {
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fail(env, "%v", err)
	}
	return 0
}

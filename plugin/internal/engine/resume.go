package engine

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/relay"
	"github.com/ctxhook/ctxhook/plugin/modeltext"
)

// The working-state block: after the harness compacted the model's
// context, or resumed a session, the model has lost what it knew about
// ctxhook's part in the session. The block tells it again, in a few
// hundred bytes: which servers' tokens ctxhook adds (so it does not try
// to type them), the captured responses the session came back to most
// (with the id to fetch each without calling the server again), its last
// searches, and where the rest is.

// recentCall is one captured MCP response the block may name.
type recentCall struct {
	Key    string `json:"k"`
	Server string `json:"s"`
	Tool   string `json:"t"`
	// Title is the call's arguments, redacted, without the relay token,
	// cut short: "{"id":"TCK-42"}" is what the model remembers a call by.
	Title string `json:"a,omitempty"`
	// Uses counts the times the session came back to it: a repeat of the
	// call (a re-fetch hint), or a get_event of its id.
	Uses int `json:"u,omitempty"`
}

const (
	maxRecent   = 16  // captured responses remembered for the block
	maxSearches = 3   // queries remembered
	titleBytes  = 80  // of a call's arguments in its title
	queryBytes  = 100 // of one remembered query
)

// noteRecent remembers a captured MCP response, newest last.
func (s *sessionState) noteRecent(r recentCall) {
	s.Recent = slices.DeleteFunc(s.Recent, func(o recentCall) bool {
		if o.Key == r.Key {
			r.Uses = o.Uses
			return true
		}
		return false
	})
	s.Recent = append(s.Recent, r)
	if len(s.Recent) > maxRecent {
		s.Recent = s.Recent[len(s.Recent)-maxRecent:]
	}
}

// used counts a return to the response stored as key.
func (s *sessionState) used(key string) bool {
	for i := range s.Recent {
		if s.Recent[i].Key == key {
			s.Recent[i].Uses++
			return true
		}
	}
	return false
}

// noteSearch remembers a query given to ctxhook's search tool.
func (s *sessionState) noteSearch(q string) {
	q = cut(strings.Join(strings.Fields(q), " "), queryBytes)
	if q == "" {
		return
	}
	s.Searches = append(slices.DeleteFunc(s.Searches, func(o string) bool { return o == q }), q)
	if len(s.Searches) > maxSearches {
		s.Searches = s.Searches[len(s.Searches)-maxSearches:]
	}
}

// noteOwnCall remembers what a call of ctxhook's own tools says about the
// session: a search's query, a get_event's id.
func (d *decision) noteOwnCall(mcpTool string, input json.RawMessage) {
	var args struct {
		Query string `json:"query"`
		ID    string `json:"id"`
	}
	if json.Unmarshal(input, &args) != nil {
		return
	}
	switch mcpTool {
	case "search":
		if q, _ := d.redactor().String(args.Query); q != "" {
			d.state.noteSearch(q)
			d.dirty = true
		}
	case "get_event":
		if d.state.used(args.ID) {
			d.dirty = true
		}
	}
}

// callTitle is the stored (redacted) arguments of a call without its
// relay token argument, keys sorted, cut at titleBytes.
func callTitle(args, tokenArg string) string {
	if len(args) > 64<<10 {
		return cut(args, titleBytes)
	}
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return cut(args, titleBytes)
	}
	delete(m, tokenArg)
	if len(m) == 0 {
		return ""
	}
	b, _ := json.Marshal(m) // keys sorted
	return cut(string(b), titleBytes)
}

// cut returns s cut to at most n bytes on a rune boundary, "…" marking a cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - len("…")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// compacted notes that the harness compacted the model's context at a
// moment it cannot add context: the next hook that can gives the block.
func (d *decision) compacted() {
	d.state.Pending = true
	d.dirty = true
}

// blockAgain is how soon a block for the same reason counts as a new
// one: two compactions (or resumes) of one session are minutes apart, two
// runs of one hook milliseconds.
const blockAgain = 2_000 // ms

// resumeBlock returns the working-state block for the model, or "" when
// it is off, has nothing to say, or was just given for the same reason
// (why: "compact" or "resume"): one block per compaction, however many
// hooks see it.
func (d *decision) resumeBlock(why string) string {
	if d.state.Pending {
		d.state.Pending, d.dirty = false, true
	}
	limit := cmp.Or(d.req.Config.Resume.MaxBytes, abi.DefaultResumeBytes)
	if limit < 0 || d.stateErr {
		return ""
	}
	if now := d.req.NowMS; d.state.BlockFor == why && now >= d.state.BlockMS && now-d.state.BlockMS < blockAgain {
		return ""
	}
	live, unconfirmed := d.relayServers()
	if len(live) == 0 && len(unconfirmed) == 0 && len(d.state.Recent) == 0 && len(d.state.Searches) == 0 {
		return ""
	}
	var b strings.Builder
	head := "[ctxhook] This session's working state, restored after " + map[string]string{
		"compact": "its context was compacted", "resume": "it was resumed"}[why] + ":\n"
	tail := "- The rest of the session is stored: ctxhook's search tool finds it (or `ctxhook search <words>`).\n"
	b.WriteString(head)
	room := limit - len(head) - len(tail)
	add := func(line string) bool {
		if len(line) > room {
			return false
		}
		b.WriteString(line)
		room -= len(line)
		return true
	}
	for _, names := range [][]string{live, unconfirmed} {
		for i, name := range names {
			names[i] = modeltext.Name(name)
		}
	}
	if len(live) > 0 {
		add("- ctxhook adds the session token to every call of: " + strings.Join(live, ", ") +
			". Never type or ask for these tokens.\n")
	}
	if len(unconfirmed) > 0 {
		add("- ctxhook still holds a session token from before the resume for: " + strings.Join(unconfirmed, ", ") +
			". It goes with the next call; should the server reject it, ctxhook drops it and says so, and that server's session has to be started again. Never type or ask for these tokens.\n")
	}
	d.recentLines(add)
	d.searchLine(add)
	if room < 0 {
		return ""
	}
	b.WriteString(tail)
	d.dirty = true
	d.state.BlockFor, d.state.BlockMS = why, d.req.NowMS
	out, _ := d.redactor().String(b.String())
	return out
}

// recentLines adds the responses captured earlier to a working-state
// block, most used first, then newest first, while add has room.
func (d *decision) recentLines(add func(string) bool) {
	if len(d.state.Recent) == 0 {
		return
	}
	order := make([]int, len(d.state.Recent))
	for i := range order {
		order[i] = len(order) - 1 - i
	}
	slices.SortStableFunc(order, func(a, b int) int { return d.state.Recent[b].Uses - d.state.Recent[a].Uses })
	if !add("- Responses captured earlier (get_event with its id returns one, no server call):\n") {
		return
	}
	for _, i := range order {
		r := d.state.Recent[i]
		// Every part is escaped: a name or an argument that held a
		// newline would otherwise start a line of its own here.
		line := "  - " + modeltext.Name(r.Key) + ": " + modeltext.Name(r.Server) + " " + modeltext.Name(r.Tool)
		if r.Title != "" {
			line += " " + modeltext.Escape(r.Title, 2*titleBytes)
		}
		if r.Uses > 0 {
			line += " (used " + strconv.Itoa(r.Uses) + "x)"
		}
		if !add(line + "\n") {
			return
		}
	}
}

// searchLine adds the last searches to a working-state block, newest
// first, as many as add has room for.
func (d *decision) searchLine(add func(string) bool) {
	if len(d.state.Searches) == 0 {
		return
	}
	quoted := make([]string, 0, len(d.state.Searches))
	for i := len(d.state.Searches) - 1; i >= 0; i-- {
		quoted = append(quoted, modeltext.Quote(d.state.Searches[i], queryBytes))
	}
	for n := len(quoted); n > 0 && !add("- Last searches: "+strings.Join(quoted[:n], ", ")+"\n"); n-- {
	}
}

// isOwn reports whether a call is of ctxhook's own MCP server.
func isOwn(c toolCall) bool { return c.isMCP && c.server == classify.OwnServer }

// blockAt returns the block for a session start of this source
// ("compact" or "resume"; none for a fresh start, a clear or a fork), or,
// for any source and for a prompt (source ""), the block a compaction
// left pending; "" when none is due.
func (d *decision) blockAt(source string) string {
	if source == "resume" {
		d.relayResumed()
	}
	switch {
	case source == "compact" || source == "resume":
		return d.resumeBlock(source)
	case d.state.Pending:
		return d.resumeBlock("compact")
	}
	return ""
}

// relayServers names the servers whose relay the block may speak of, each
// sorted: live (a token held and, since the last resume, accepted or
// newly issued) and unconfirmed (kept across a resume, not yet sent or
// not yet answered). A server with the relay on but no token held, or
// behind the proxy (whose tokens this session's state does not hold), is
// not named: saying that ctxhook adds a token it does not have is what
// made a model keep calling a server that had forgotten its session.
func (d *decision) relayServers() (live, unconfirmed []string) {
	for _, name := range slices.Sorted(maps.Keys(d.state.Tokens)) {
		if rs, ok := relay.Lookup(d.req.Config, name); !ok || rs.Proxy || d.state.Tokens[name] == "" {
			continue
		}
		if slices.Contains(d.state.Unconfirmed, name) {
			unconfirmed = append(unconfirmed, name)
		} else {
			live = append(live, name)
		}
	}
	return live, unconfirmed
}

// relayResumed applies a resume to the tokens held: the agent runs its MCP
// servers anew, so a token is unconfirmed until the server accepts it, or
// dropped where the user said the server's tokens die with its process
// (on_resume = "drop").
func (d *decision) relayResumed() {
	for _, name := range slices.Sorted(maps.Keys(d.state.Tokens)) {
		rs, ok := relay.Lookup(d.req.Config, name)
		switch {
		case !ok || rs.Proxy:
		case rs.Drop:
			d.dirty = d.state.dropToken(name) || d.dirty
		default:
			d.dirty = d.state.unconfirm(name) || d.dirty
		}
	}
}

// Package mcpserver is `ctxhook mcp`: an MCP server (stdio, the official Go
// SDK) that gives the agent its own captured memory, so it can look a
// response up instead of fetching it again.
//
// Every answer carries the same metadata three ways, because clients differ
// in what reaches the model: in structuredContent (described by the tool's
// outputSchema), in result _meta under "ctxhook", and, for the essentials,
// in the first line of the text. Bad arguments are tool errors with a
// message that says what to send instead, never a crash.
package mcpserver

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name is the server name ctxhook installs itself under; its tools are
// never nudged or shaped by the plugin (classify.OwnServer).
const Name = "ctxhook"

// Limits.
const (
	MaxLimit     = 50
	DefaultLimit = 10
	MaxContext   = 10
	DefaultPage  = 32 << 10
	MaxPage      = 256 << 10
	// StaleAfter: an index whose newest event is older than this gets an
	// INDEX_STALE warning (hooks may not be recording).
	StaleAfter = 24 * time.Hour
)

// Options configure a server.
type Options struct {
	// DB is the store's path. The store is opened per call, read-only, so
	// the server sees what hooks write while it runs, and a missing store
	// is an empty index rather than an error.
	DB string
	// Version is reported as tool_version.
	Version string
	// Now is the clock (tests fix it).
	Now func() time.Time
	// Decide, when set, answers Claude Code's "mcp_tool" hooks (HookTool).
	Decide Decide
	// HookSecret reads the per-install secret a hook call must carry
	// (hooksecret.Read); nil, or an error, refuses every hook call.
	HookSecret func() (string, error)

	// Spool is the spool directory: get_event serves an event from there
	// until it is in the store (a pointer is given before the event is
	// stored, and while the store cannot take it).
	Spool string

	// OpenShared, when set, opens the shared store ([store] url): search
	// adds the user's events from other machines and the team's (refs
	// s<id>), which get_event and get_context read. When it cannot be
	// reached, answers come from this machine's store with a
	// SHARED_UNREACHABLE warning.
	OpenShared func() (Shared, error)
}

// Meta is the machine-readable part of every answer.
type Meta struct {
	// Tokens approximates the model tokens of the text content: bytes / 4,
	// rounded up (a common rule of thumb for English and code).
	Tokens           int       `json:"tokens" jsonschema:"approximate model tokens of the text content (bytes/4, rounded up)"`
	DurationMS       float64   `json:"duration_ms" jsonschema:"time spent answering, in milliseconds"`
	Timestamp        string    `json:"timestamp" jsonschema:"when the answer was made (RFC 3339)"`
	Cached           bool      `json:"cached" jsonschema:"true when the same request was answered from ctxhook's answer cache (the index had not changed)"`
	ResultsTotal     int       `json:"results_total" jsonschema:"how many results match in all"`
	ResultsReturned  int       `json:"results_returned" jsonschema:"how many are in this answer"`
	ResultsTruncated bool      `json:"results_truncated" jsonschema:"true when more results (or more of a body) exist than were returned"`
	IndexSize        int64     `json:"index_size" jsonschema:"events and transcript turns in the index"`
	IndexLastUpdated string    `json:"index_last_updated" jsonschema:"time of the newest indexed event (RFC 3339); empty when the index is empty"`
	Warnings         []Warning `json:"warnings" jsonschema:"conditions the caller should know about"`
	RequestID        string    `json:"request_id" jsonschema:"unique id of this answer"`
	ToolVersion      string    `json:"tool_version" jsonschema:"ctxhook's version"`
}

// Warning is one condition worth knowing, e.g. INDEX_STALE.
type Warning struct {
	Code     string `json:"code" jsonschema:"machine-readable code, e.g. INDEX_STALE, INDEX_EMPTY, BODY_TRUNCATED_AT_CAPTURE"`
	Message  string `json:"message"`
	Severity string `json:"severity" jsonschema:"info, warning or error"`
}

// Server answers tool calls.
type Server struct {
	opts  Options
	mu    sync.Mutex
	cache map[string]cached

	// One read-only connection serves every call, one call at a time:
	// opening the store costs more than a search. It is opened again when
	// the file at DB is another one (purged and recreated) or a read
	// fails.
	stMu   sync.Mutex
	st     *store.Store
	stFile os.FileInfo

	sh *sharedConn // nil: no shared store configured
}

type cached struct {
	version string // index state it was computed at
	out     any
	text    string
}

// New returns a server for the store at o.DB.
func New(o Options) *Server {
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Server{opts: o, cache: map[string]cached{}}
	if o.OpenShared != nil {
		s.sh = &sharedConn{open: o.OpenShared}
	}
	return s
}

// Close lets the shared store's connection go.
func (s *Server) Close() {
	if s.sh != nil {
		s.sh.close()
	}
}

// MCP builds the MCP server with ctxhook's tools.
func (s *Server) MCP() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "ctxhook session memory", Version: s.opts.Version},
		&mcp.ServerOptions{Instructions: "ctxhook stores every tool response of this machine's agent sessions, secrets redacted. " +
			"Before fetching a ticket, log or page again, call search; get_event returns a stored response in full " +
			"(also for the event keys shaped responses point to)."})
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	mcp.AddTool(srv, &mcp.Tool{Name: "search", Annotations: readOnly,
		Description: "Full-text search over captured tool responses, in any words: no term is required; events holding the most, " +
			"and the rarest, of the terms (or words for the same thing) rank first, and the terms no event holds are named. " +
			"Returns ranked events with snippets. Use it before re-fetching anything."}, s.search)
	mcp.AddTool(srv, &mcp.Tool{Name: "get_context", Annotations: readOnly,
		Description: "The events around a search hit, in order, from the same session (what came before and after it)."}, s.getContext)
	mcp.AddTool(srv, &mcp.Tool{Name: "get_event", Annotations: readOnly,
		Description: "A stored response in full, by event id (from search) or key (from a shaped response or a hint); " +
			"page huge bodies with offset and length."}, s.getEvent)
	mcp.AddTool(srv, &mcp.Tool{Name: "stats", Annotations: readOnly,
		Description: "What ctxhook did in a session (or all): calls, bytes captured, bytes kept out of context, " +
			"re-fetches avoided, tokens relayed, nudges fired."}, s.stats)
	if s.opts.Decide != nil {
		srv.AddReceivingMiddleware(hookMiddleware(s.opts.Decide, s.opts.HookSecret))
	}
	return srv
}

func ptr[T any](v T) *T { return &v }

// call wraps every tool: it opens the store, times the answer, fills the
// metadata, serves repeats from the cache while the index is unchanged,
// and writes the text content with the essentials first.
func call[In, Out any](s *Server, name string, in In, meta func(*Out) *Meta,
	answer func(st *store.Store, out *Out) (string, error)) (*mcp.CallToolResult, Out, error) {
	start := time.Now()
	var out Out
	s.stMu.Lock()
	defer s.stMu.Unlock()
	st, idx, unreadable := s.openForCall()
	var err error
	key := name + "\x00" + fmt.Sprintf("%#v", in)
	s.mu.Lock()
	hit, ok := s.cache[key]
	s.mu.Unlock()
	var text string
	// The local index's version says nothing of the shared store's: with
	// one, nothing is answered from the cache.
	cacheable := st != nil && s.sh == nil
	fromCache := ok && hit.version == idx.version() && cacheable
	if fromCache {
		out, text = hit.out.(Out), hit.text
	} else {
		text, err = answer(st, &out)
		if err != nil && st != nil && store.Damaged(err) {
			// A connection opened before the files changed under it (a
			// store cut, or replaced, while a writer held it) may keep a
			// view no longer on disk: answered once more on one opened now.
			s.dropStore()
			st, idx, unreadable = s.openForCall()
			cacheable = st != nil && s.sh == nil
			out = *new(Out)
			text, err = answer(st, &out)
		}
		if err != nil && unreadable != nil {
			err = fmt.Errorf("%v (%v; ctxhook doctor)", err, unreadable)
		}
		if err != nil {
			return nil, out, err
		}
		if cacheable {
			s.mu.Lock()
			if len(s.cache) > 64 {
				clear(s.cache)
			}
			s.cache[key] = cached{idx.version(), out, text}
			s.mu.Unlock()
		}
	}
	m := meta(&out)
	s.fillMeta(m, idx, unreadable, fromCache)
	m.RequestID = requestID()
	m.ToolVersion = s.opts.Version
	m.DurationMS = math.Round(float64(time.Since(start).Microseconds())/10) / 100
	head := essentials(m)
	m.Tokens = (len(head) + 1 + len(text) + 3) / 4
	head = essentials(m)
	res := &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: head + "\n" + text}},
		Meta:    mcp.Meta{"ctxhook": m},
	}
	return res, out, nil
}

// openForCall opens the store for a tool call and reads its index state.
// A store that cannot be read is opened once more; should it still fail,
// st is nil and unreadable says why: the call answers from what waits in
// the spool.
func (s *Server) openForCall() (st *store.Store, idx indexState, unreadable error) {
	st = s.store()
	if st != nil {
		var err error
		if idx, err = readIndex(st); err != nil {
			s.dropStore()
			if st = s.store(); st != nil {
				if idx, err = readIndex(st); err != nil {
					s.dropStore()
					st = nil
				}
			}
			if st == nil {
				// A damaged store: answer from what waits in the spool.
				unreadable = fmt.Errorf("the store %s cannot be read: %v", s.opts.DB, err)
			}
		}
	} else if _, err := os.Stat(s.opts.DB); err == nil {
		unreadable = fmt.Errorf("the store %s cannot be opened", s.opts.DB)
	}
	return st, idx, unreadable
}

// fillMeta sets a call's metadata: the time, the index's size and age,
// and the warnings about the store.
func (s *Server) fillMeta(m *Meta, idx indexState, unreadable error, fromCache bool) {
	now := s.opts.Now()
	m.Cached = fromCache
	m.Timestamp = now.UTC().Format(time.RFC3339Nano)
	m.IndexSize = idx.events
	if idx.newestMS > 0 {
		m.IndexLastUpdated = time.UnixMilli(idx.newestMS).UTC().Format(time.RFC3339)
	}
	m.Warnings = append([]Warning{}, m.Warnings...)
	switch {
	case unreadable != nil:
		m.Warnings = append(m.Warnings, Warning{"STORE_UNREADABLE", unreadable.Error() + ": only events not yet stored (the spool) are served; ctxhook doctor", "error"})
	case idx.events == 0:
		m.Warnings = append(m.Warnings, Warning{"INDEX_EMPTY", "nothing has been captured yet: are ctxhook's hooks installed? (ctxhook doctor <harness>)", "warning"})
	case now.Sub(time.UnixMilli(idx.newestMS)) > StaleAfter:
		m.Warnings = append(m.Warnings, Warning{"INDEX_STALE", fmt.Sprintf("the newest captured event is %s old: hooks may not be recording (ctxhook doctor <harness>)",
			now.Sub(time.UnixMilli(idx.newestMS)).Round(time.Minute)), "warning"})
	}
}

// store returns the kept connection, opened again if the file at DB is
// not the one it was opened on; nil when there is no store yet.
func (s *Server) store() *store.Store {
	fi, err := os.Stat(s.opts.DB)
	if err != nil {
		s.dropStore()
		return nil
	}
	if s.st != nil && os.SameFile(fi, s.stFile) {
		return s.st
	}
	s.dropStore()
	st, err := store.Open(s.opts.DB, store.Options{ReadOnly: true})
	if err != nil {
		return nil
	}
	s.st, s.stFile = st, fi
	// Answers cached from another file: a new one may have the same
	// index version (as many events, the same largest id).
	s.mu.Lock()
	clear(s.cache)
	s.mu.Unlock()
	return st
}

func (s *Server) dropStore() {
	if s.st != nil {
		s.st.Close()
		s.st, s.stFile = nil, nil
	}
}

// essentials is the text line every answer starts with.
func essentials(m *Meta) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[ctxhook] %d of %d results", m.ResultsReturned, m.ResultsTotal)
	if m.ResultsTruncated {
		b.WriteString(" (more available)")
	}
	fmt.Fprintf(&b, "; ~%d tokens; %.2f ms", m.Tokens, m.DurationMS)
	if m.Cached {
		b.WriteString("; cached")
	}
	fmt.Fprintf(&b, "; index %d events", m.IndexSize)
	if m.IndexLastUpdated != "" {
		fmt.Fprintf(&b, ", updated %s", m.IndexLastUpdated)
	}
	for _, w := range m.Warnings {
		fmt.Fprintf(&b, "; %s: %s", w.Code, w.Message)
	}
	return b.String()
}

type indexState struct {
	events, maxID, newestMS int64
}

func (i indexState) version() string {
	return strconv.FormatInt(i.events, 10) + "/" + strconv.FormatInt(i.maxID, 10)
}

func readIndex(st *store.Store) (indexState, error) {
	events, maxID, newest, err := st.IndexState()
	if err != nil {
		return indexState{}, err
	}
	chunks, err := st.ChunkCount()
	// A new chunk changes the version too: maxID is offset by the count.
	return indexState{events + chunks, maxID*1_000_003 + chunks, newest}, err
}

func requestID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "req_" + hex.EncodeToString(b)
}

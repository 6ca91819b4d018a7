// Package relay decides token capture and injection for one MCP server.
//
// A server hands out a session token in a result; the model would have to
// retype it on the next call and sometimes gets it wrong. The relay takes
// the token from the result and puts it into the next call's arguments, so
// the model never types it. Capture and injection are separate so that any
// adapter (a hook that sees the result, a proxy that sees _meta) can feed
// the same state.
package relay

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/jsonfast"
	"github.com/ctxhook/ctxhook/plugin/internal/jsonpath"
)

// Server is one server's relay settings with defaults applied.
type Server struct {
	Name         string
	TokenArg     string
	StartTools   []string
	SkipArgs     []string
	CapturePaths []string
	Proxy        bool
	MetaKey      string
	// Drop: a resume drops the token instead of keeping it unconfirmed.
	Drop bool
	// TokenErrors recognise an error that rejects the call's token.
	TokenErrors []string
}

// Lookup returns the relay settings for server, and false when the relay is
// not enabled for it (the default: injection auto-approves calls, so it is
// opt-in per server).
func Lookup(cfg abi.Config, server string) (Server, bool) {
	sc, ok := cfg.Servers[server]
	if !ok || !sc.Relay || server == "" {
		return Server{}, false
	}
	s := Server{Name: server, TokenArg: sc.TokenArg, StartTools: sc.StartTools,
		SkipArgs: sc.SkipArgs, CapturePaths: sc.CapturePaths, Proxy: sc.Proxy, MetaKey: sc.MetaKey,
		Drop: sc.OnResume == abi.OnResumeDrop, TokenErrors: sc.TokenErrors}
	if s.TokenArg == "" {
		s.TokenArg = abi.DefaultTokenArg
	}
	if s.StartTools == nil {
		s.StartTools = []string{abi.DefaultStartTool}
	}
	if s.SkipArgs == nil {
		s.SkipArgs = []string{abi.DefaultSkipArg}
	}
	if s.CapturePaths == nil {
		s.CapturePaths = abi.DefaultCapturePaths
	}
	if s.TokenErrors == nil {
		s.TokenErrors = append([]string{`\b` + regexp.QuoteMeta(s.TokenArg) + `\b`}, abi.DefaultTokenErrors...)
	}
	return s, true
}

// rejectBytes is how much of an error's text is matched: an error that
// rejects a token says so at once, and a hostile server's 64 MiB error
// must not cost a hook its deadline.
const rejectBytes = 8 << 10

// RejectsToken reports whether an error's text says the call's token was
// rejected (TokenErrors). A pattern that does not compile matches nothing.
func (s Server) RejectsToken(text string) bool {
	if len(text) > rejectBytes {
		text = text[:rejectBytes]
	}
	for _, p := range s.TokenErrors {
		re, err := regexp.Compile("(?i)" + p)
		if err == nil && re.MatchString(text) {
			return true
		}
	}
	return false
}

// Carries reports whether a call's input holds token as its token
// argument: the relay put it there (or the model typed the same value).
func (s Server) Carries(input json.RawMessage, token string) bool {
	if token == "" {
		return false
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(input, &args) != nil {
		return false
	}
	var got string
	return json.Unmarshal(args[s.TokenArg], &got) == nil && got == token
}

// Capture finds the session token in a tool result. result is whatever
// the adapter has: a full CallToolResult object, a content-block array, or
// a string (Claude Code's rendering of structuredContent).
func (s Server) Capture(result json.RawMessage) (string, bool) {
	var e jsonfast.Expander
	v, err := e.Expand(result)
	return s.CaptureIn(&e, v, err)
}

// CaptureIn is Capture on a result already expanded by e (v, err as
// e.Expand returns them): only what the capture paths walk through is
// decoded.
func (s Server) CaptureIn(e *jsonfast.Expander, v any, err error) (string, bool) {
	if err != nil {
		return "", false
	}
	doc := normalize(v)
	if doc == nil {
		return "", false
	}
	for _, p := range s.CapturePaths {
		if tok, ok := jsonpath.FirstStringIn(e, doc, p); ok {
			return tok, true
		}
	}
	return "", false
}

// normalize turns any rendering of a tool result, expanded, into the
// shape of an MCP CallToolResult, so one set of capture paths serves
// every adapter.
func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return t
	case []any:
		return map[string]any{"content": t}
	case string:
		doc := map[string]any{"content": []any{map[string]any{"type": "text", "text": t}}}
		// A string holding a JSON object is structuredContent as Claude
		// Code renders it. Left raw: a path that goes there expands it,
		// and one that does not never pays for it (an invalid object
		// then reads as absent, as it is).
		if trimmed := strings.TrimLeft(t, " \t\n\r"); strings.HasPrefix(trimmed, "{") {
			doc["structuredContent"] = jsonfast.Raw(unsafe.Slice(unsafe.StringData(trimmed), len(trimmed)))
		}
		return doc
	}
	return nil
}

// Skip says why a call gets no token; SkipNone means inject.
type Skip string

const (
	SkipNone      Skip = ""
	SkipStartTool Skip = "start_tool"
	SkipPresent   Skip = "token_present"
	SkipArg       Skip = "skip_arg"
	SkipNoToken   Skip = "no_token"
	SkipBadInput  Skip = "bad_input"
)

// Inject returns the call's input with the token added, or why not. The
// input's own keys keep their order; the token is appended last.
func (s Server) Inject(tool string, input json.RawMessage, token string) (json.RawMessage, Skip) {
	if slices.Contains(s.StartTools, tool) {
		return nil, SkipStartTool
	}
	var args map[string]json.RawMessage
	in := bytes.TrimSpace(input)
	if len(in) == 0 || bytes.Equal(in, []byte("null")) {
		in = []byte("{}")
	}
	if json.Unmarshal(in, &args) != nil {
		return nil, SkipBadInput
	}
	if _, ok := args[s.TokenArg]; ok {
		return nil, SkipPresent
	}
	for _, a := range s.SkipArgs {
		if _, ok := args[a]; ok {
			return nil, SkipArg
		}
	}
	if token == "" {
		return nil, SkipNoToken
	}
	var b bytes.Buffer
	if err := json.Compact(&b, in); err != nil {
		return nil, SkipBadInput
	}
	out := b.Bytes()
	field := strconv.Quote(s.TokenArg) + ":" + quoteJSON(token)
	if len(args) == 0 {
		return json.RawMessage("{" + field + "}"), SkipNone
	}
	return json.RawMessage(string(out[:len(out)-1]) + "," + field + "}"), SkipNone
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

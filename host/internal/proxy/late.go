package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/decider"
	"github.com/ctxhook/ctxhook/host/internal/memtrim"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// A large result whose decision did not come (the plugin ran past the
// deadline, or failed) is shaped by the proxy on its own terms: the
// client gets the head of its text and a note, never the whole of it
// (64 MiB into a model's context), and never its session token.
//
// The token is found by the plugin all the same, on a skeleton of the
// message: every long JSON string cut to its first skeletonCut bytes.
// The plugin's strip decision on the skeleton captures the next token
// and hides every copy of the current one; the head is cut from what it
// returns, so a copy of the token further into the text never reaches
// the client. A decision that ran past its deadline is finished under
// the same request id (finishLate: the daemon joins a run under way,
// or decides one it dropped while queued), the event stored whole under
// the key the plugin derives from that id, so the note points at that
// event; meanwhile the proxy decides in-process (decider: busyFor).

// ownShapeMin is the size from which a result whose decision failed is
// shaped by the proxy rather than passed on whole (token stripped).
const ownShapeMin = 1 << 20

// skeletonCut is how much of each long JSON string a skeleton keeps: far
// more than any session token, so the plugin captures and hides whole ones.
const skeletonCut = 16 << 10

// skeletonMax bounds a skeleton: a result of very many short strings
// makes none, and is stripped whole instead (the earlier path).
const skeletonMax = 4 << 20

// ownHeadBytes is how much text the proxy's own shaping keeps when the
// config sets no [shaping] head_bytes (the plugin's default head).
const ownHeadBytes = abi.DefaultShapeHead

// shapeOnOwn answers a large tools/call result m whose response decision
// (named reqID) failed with err: its head and a note, token hidden. ok
// is false when no skeleton can be made.
func (p *proxy) shapeOnOwn(m, request []byte, id json.RawMessage, reqID string, err error) (answer []byte, ok bool) {
	skel, ok := skeleton(m, skeletonCut, skeletonMax)
	if !ok {
		return nil, false
	}
	late := errors.Is(err, decider.ErrLate)
	stripped, serr := p.decide(abi.ProxyStrip, skel, request)
	if serr != nil {
		p.logf("cannot remove the session token from a result (%v); the client gets an error instead", serr)
		return errorResponse(id, CodeUndecided, "ctxhook proxy: the result could not be checked for the server's session token, so it was withheld"), true
	}
	if stripped == nil {
		stripped = skel
	}
	note := "\n\n[ctxhook: showing %d of " + strconv.Itoa(len(m)) + " bytes. ctxhook could not decide on this result, so the rest was withheld; it is not stored.]"
	if late {
		key := eventKey(p.o.Session, p.o.Name, string(id), "request "+reqID, callArgs(request))
		note = "\n\n[ctxhook: showing %d of " + strconv.Itoa(len(m)) + " bytes to save context. The full response is stored as event " + key +
			": call ctxhook's get_event with id \"" + key + "\" (or run `ctxhook show " + key + "`), or search it.]"
	}
	return headAnswer(stripped, id, note, headSize(p.config)), true
}

// headSize is how many bytes of head the proxy's own shaping shows: the
// user's [shaping] head_bytes, as the plugin would keep, up to the
// skeleton's cut (past it the skeleton holds no more of a long string).
// It is none with [redact] model on (the strip decision redacts
// nothing), nor when the config cannot be read in full (the pointer
// alone, then).
func headSize(configPath string) int {
	cfg, err := config.Load(configPath)
	switch {
	case err != nil || cfg.Redact.Model:
		return 0
	case cfg.Shaping.HeadBytes > 0:
		return min(cfg.Shaping.HeadBytes, skeletonCut)
	}
	return ownHeadBytes
}

// headAnswer is the response to id with only the head (up to headMax
// bytes) of msg's first text block, and note (a format with the head's
// length); msg's _meta and isError are kept, the rest of its result is
// left out. A msg without a result (a JSON-RPC error) is answered with
// an error, never a success: see errorAnswer.
func headAnswer(msg []byte, id json.RawMessage, note string, headMax int) []byte {
	var in struct {
		Result *struct {
			Meta    json.RawMessage `json:"_meta,omitempty"`
			IsError bool            `json:"isError,omitempty"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *rpcError `json:"error"`
	}
	json.Unmarshal(msg, &in)
	if in.Result == nil {
		return errorAnswer(in.Error, id, note, headMax)
	}
	head := ""
	for _, c := range in.Result.Content {
		if c.Type == "text" && headMax > 0 {
			head = headOf(c.Text, headMax)
			break
		}
	}
	meta := in.Result.Meta
	if len(meta) > skeletonCut {
		meta = nil
	}
	text := head + sprintfInt(note, len(head))
	out := map[string]any{"content": []map[string]string{{"type": "text", "text": text}}}
	if len(meta) > 0 {
		out["_meta"] = meta
	}
	if in.Result.IsError {
		out["isError"] = true
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": out})
	return b
}

// rpcError is the part of a JSON-RPC error the proxy's own shaping keeps.
type rpcError struct {
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

// errorAnswer is the error response to id for a large JSON-RPC error e
// (nil when the message had neither result nor error): its code when an
// integer, else CodeUndecided, and the head of its message (up to
// headMax bytes, as for a result) with note. Its data is left out.
func errorAnswer(e *rpcError, id json.RawMessage, note string, headMax int) []byte {
	code := json.RawMessage(strconv.Itoa(CodeUndecided))
	head := ""
	if e != nil {
		if _, err := strconv.ParseInt(string(e.Code), 10, 32); err == nil {
			code = e.Code
		}
		if headMax > 0 {
			head = headOf(e.Message, headMax)
		}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": head + sprintfInt(note, len(head))}})
	return b
}

// sprintfInt puts n where format has its one %d.
func sprintfInt(format string, n int) string {
	for i := 0; i+1 < len(format); i++ {
		if format[i] == '%' && format[i+1] == 'd' {
			return format[:i] + strconv.Itoa(n) + format[i+2:]
		}
	}
	return format
}

// headOf is at most max bytes of text, cut at its last line break in the
// second half when there is one, else at a UTF-8 boundary (the plugin's
// shape.Head).
func headOf(text string, max int) string {
	if len(text) <= max {
		return text
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	for i := cut - 1; i >= max/2; i-- {
		if text[i] == '\n' {
			return text[:i]
		}
	}
	return text[:cut]
}

// eventKey is the key the plugin gives the event a proxied result is
// recorded as (plugin/internal/shape.Key over the session, server,
// JSON-RPC id, request id and arguments): "e" and 16 hex digits of
// FNV-1a. TestEventKeyMatchesPlugin checks it against the plugin's own.
func eventKey(parts ...string) string { return abi.EventKey(parts...) }

// callArgs is a tools/call request's arguments as the plugin keys them:
// as written, or {} when there are none.
func callArgs(request []byte) string {
	var r struct {
		Params struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	json.Unmarshal(request, &r)
	if a := string(r.Params.Arguments); a != "" && a != "null" {
		return a
	}
	return "{}"
}

// skeleton is the JSON message m with every string longer than cut
// bytes cut to about cut bytes (at an escape and UTF-8 boundary), or
// ok false as soon as it would pass max: every byte counts, numbers and
// whitespace as much as strings, so no message makes a skeleton (or a
// strip of one) larger than max. m is valid JSON.
func skeleton(m []byte, cut, max int) (out []byte, ok bool) {
	out = make([]byte, 0, min(len(m), max))
	for i := 0; i < len(m); {
		if m[i] != '"' {
			if len(out) >= max {
				return nil, false
			}
			out = append(out, m[i])
			i++
			continue
		}
		end := stringEnd(m, i)
		if end < 0 {
			return nil, false
		}
		s := m[i : end+1]
		if len(s) > cut+2 {
			s = append(m[i:stringCut(m, i, cut):stringCut(m, i, cut)], '"')
		}
		if len(out)+len(s) > max {
			return nil, false
		}
		out = append(out, s...)
		i = end + 1
	}
	return out, true
}

// stringCut is where to cut the JSON string that opens at m[open] so
// that it keeps at most cut bytes of its content: never inside an escape
// or a UTF-8 sequence.
func stringCut(m []byte, open, cut int) int {
	i, last := open+1, open+1
	for i-open-1 <= cut {
		last = i
		switch {
		case m[i] == '\\' && m[i+1] == 'u':
			i += 6
		case m[i] == '\\':
			i += 2
		default:
			_, n := utf8.DecodeRune(m[i:])
			i += n
		}
	}
	return last
}

// lateWait bounds how long a proxy whose client has left waits for its
// late decisions to end: one Finish try (decider.MaxDeadline) and a
// little. A proxy killed meanwhile loses what the daemon had dropped.
const lateWait = decider.MaxDeadline + 5*time.Second

// awaitLate waits up to max for the late decisions under way, saying
// so when it takes more than a moment.
func (p *proxy) awaitLate(max time.Duration) {
	done := make(chan struct{})
	go func() { p.late.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(500 * time.Millisecond):
	}
	p.logf("the client has left; waiting up to %v for late results to be stored", max)
	select {
	case <-done:
	case <-time.After(max):
		p.logf("late results were not all stored within %v; a pointer the client got may name no event", max)
	}
}

// finishLate sees the late decision reqID on result m through to its
// end in the background (decider.Finish), so that the event a pointer
// names is stored, once, even when the daemon dropped the run while it
// was queued behind others.
func (p *proxy) finishLate(reqID string, m, request []byte) {
	defer memtrim.After(int64(len(m))) // m is held here until the decision ends
	payload := proxyPayload(p.o.Session, p.o.Name, p.upID, m, request)
	if err := p.dec.Finish(context.Background(), reqID, abi.HarnessMCPProxy, abi.ProxyResponse, payload); err != nil {
		p.logf("a tools/call result decided late was not finished (%v); it may not be stored", err)
	}
}

package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// httpUpstream speaks MCP's streamable HTTP transport to a remote server:
// every client message is POSTed (concurrently, so requests stay in
// flight together); the answer is JSON or a server-sent event stream; the
// session id the server assigns at initialize is sent back on every
// request and ended with DELETE when the client goes.
type httpUpstream struct {
	p       *proxy
	client  *http.Client
	mu      sync.Mutex
	session string
	version string
	tools   toolHeaders // x-mcp-header annotations, for 2026-07-28's mirrored headers
	wg      sync.WaitGroup
	getOnce sync.Once
	ctx     context.Context
	cancel  context.CancelFunc
}

func newHTTPUpstream(p *proxy) *httpUpstream {
	ctx, cancel := context.WithCancel(context.Background())
	u := &httpUpstream{p: p, ctx: ctx, cancel: cancel}
	u.client = &http.Client{CheckRedirect: u.redirect}
	return u
}

// redirect follows at most 10 redirects, and one to another host
// without the proxy's own headers: Go drops Authorization and cookies
// there by itself, not an X-Api-Key or any other header the user gave
// for this server.
func (u *httpUpstream) redirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if req.URL.Host != via[0].URL.Host {
		for k := range u.p.o.Headers {
			req.Header.Del(k)
		}
	}
	return nil
}

// scrub removes the values of the proxy's own headers from text the
// server sent back (an error page that echoes the request): they are the
// user's credentials, and the text goes to the model and to stderr.
func (u *httpUpstream) scrub(text string) string {
	for _, v := range u.p.o.Headers {
		for _, secret := range []string{v, strings.TrimSpace(strings.TrimPrefix(v, "Bearer "))} {
			if len(secret) >= 8 {
				text = strings.ReplaceAll(text, secret, "[REDACTED]")
			}
		}
	}
	return text
}

func (u *httpUpstream) request(ctx context.Context, method string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u.p.o.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range u.p.o.Headers {
		req.Header.Set(k, v)
	}
	u.mu.Lock()
	if u.session != "" {
		req.Header.Set("Mcp-Session-Id", u.session)
	}
	if u.version != "" {
		req.Header.Set("MCP-Protocol-Version", u.version)
	}
	version := u.version
	u.mu.Unlock()
	// The body as it goes out, the plugin's change included: headers
	// that mirror it are written from it, never from what the client sent.
	if own := u.tools.mirror(req.Header, version, body); own != "" {
		u.mu.Lock()
		u.version = own // for the notifications that follow, which name none
		u.mu.Unlock()
	}
	return req, nil
}

func (u *httpUpstream) send(m []byte) {
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		u.post(m)
	}()
}

func (u *httpUpstream) post(m []byte) { u.postOnce(m, true) }

// postOnce sends one message. A tools/call refused for headers that do
// not mirror its body (2026-07-28), of a tool the proxy has not seen
// listed, may have an argument the tool's schema marks for a header: the
// proxy then lists the tools itself and sends the call once more (retry),
// as the revision asks of a client without the schema, but only when the
// refusal says the call did not run (notRun) and the listing changed the
// headers the call goes out with. Otherwise the same request would be
// refused the same way, and a server that ran the call before it
// refused it would run it twice.
func (u *httpUpstream) postOnce(m []byte, retry bool) {
	env, _ := parseEnvelope(m)
	req, err := u.request(u.ctx, http.MethodPost, m)
	if err != nil {
		u.fail(env, err.Error())
		return
	}
	resp, err := u.client.Do(req)
	if err != nil {
		u.fail(env, fmt.Sprintf("cannot reach %s: %v", u.p.o.URL, err))
		return
	}
	defer resp.Body.Close()
	if retry && resp.StatusCode == http.StatusBadRequest && env.Method == "tools/call" {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if tool := toolName(m); notRun(resp, b, env.ID) && tool != "" && !u.tools.known(tool) {
			if u.listTools(m) && u.headersChange(req.Header, m) {
				resp.Body.Close()
				u.postOnce(m, false)
				return
			}
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && env.Method == "initialize" {
		u.mu.Lock()
		u.session = sid
		u.mu.Unlock()
	}
	if resp.StatusCode == http.StatusAccepted {
		return // a notification or response was accepted
	}
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		u.fail(env, fmt.Sprintf("MCP server answered HTTP %d: %s", resp.StatusCode, u.scrub(strings.TrimSpace(string(b)))))
		return
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "text/event-stream":
		readEvents(resp.Body, u.p.o.MaxMessage, u.deliver, u.p.serverTooLong)
	default:
		b, err := io.ReadAll(io.LimitReader(resp.Body, int64(u.p.o.MaxMessage)+1))
		if err != nil {
			u.fail(env, err.Error())
			return
		}
		if len(b) > u.p.o.MaxMessage {
			n, _ := io.Copy(io.Discard, resp.Body)
			u.p.serverTooLong(b[:headBytes], int64(len(b))+n)
			return
		}
		if len(bytes.TrimSpace(b)) > 0 {
			u.deliver(bytes.TrimSpace(b))
		}
	}
	if env.Method == "initialize" {
		u.getOnce.Do(func() { go u.listen() })
	}
}

// toolName is the tool a tools/call names, or "".
func toolName(call []byte) string {
	var name string
	json.Unmarshal(field(field(call, "params"), "name"), &name)
	return name
}

// codeHeaderMismatch is the JSON-RPC error of a request whose mirrored
// headers and body differ (MCP 2026-07-28).
const codeHeaderMismatch = -32020

// notRun reports whether a refused call did not run, by the rule of MCP
// 2026-07-28: a server checks the mirrored headers before it handles the
// request, and answers a mismatch with HTTP 400 and the JSON-RPC error
// -32020. So: the answer to the POST itself, HTTP 400 (checked by the
// caller), as application/json, not an event stream (a stream is a
// request taken, with progress or output perhaps already sent), whose
// body is one JSON-RPC error -32020 for this call's id, with no result.
func notRun(resp *http.Response, body []byte, id json.RawMessage) bool {
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "application/json" {
		return false
	}
	var e struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == nil || e.Error.Code != codeHeaderMismatch || e.Result != nil {
		return false
	}
	return idKey(e.ID) == idKey(id)
}

// headersChange reports whether call would now go out with other
// headers than sent: what the proxy learned from the tool list must fix
// the mismatch for a second try to be worth sending.
func (u *httpUpstream) headersChange(sent http.Header, call []byte) bool {
	req, err := u.request(u.ctx, http.MethodPost, call)
	if err != nil {
		return false
	}
	if len(sent) != len(req.Header) {
		return true
	}
	for k, v := range req.Header {
		if strings.Join(sent.Values(k), "\x00") != strings.Join(v, "\x00") {
			return true
		}
	}
	return false
}

// listTools asks the server for its tools (every page), for their header
// annotations, with the _meta of call (the revision and client it names).
// The answers are the proxy's own: the client never sees them.
func (u *httpUpstream) listTools(call []byte) bool {
	// The revision and client the call names; not its progress token.
	meta := map[string]json.RawMessage{}
	for _, k := range []string{metaProtocolVersion, "io.modelcontextprotocol/clientInfo", "io.modelcontextprotocol/clientCapabilities"} {
		if v := field(field(field(call, "params"), "_meta"), k); v != nil {
			meta[k] = v
		}
	}
	cursor, learned := "", false
	for page := 0; page < 20; page++ {
		params := map[string]any{}
		if len(meta) > 0 {
			params["_meta"] = meta
		}
		if cursor != "" {
			params["cursor"] = cursor
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("ctxhook-tools-%d", page), "method": "tools/list", "params": params})
		req, err := u.request(u.ctx, http.MethodPost, body)
		if err != nil {
			return learned
		}
		resp, err := u.client.Do(req)
		if err != nil {
			return learned
		}
		var answer []byte
		keep := func(msg []byte) {
			if bytes.Contains(msg, []byte(`"result"`)) {
				answer = msg
			}
		}
		if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "text/event-stream" {
			readEvents(resp.Body, u.p.o.MaxMessage, keep, func([]byte, int64) {})
		} else if b, err := io.ReadAll(io.LimitReader(resp.Body, int64(u.p.o.MaxMessage))); err == nil {
			keep(b)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || answer == nil {
			return learned
		}
		u.tools.learn(answer)
		learned = true
		var next struct {
			Result struct {
				NextCursor string `json:"nextCursor"`
			} `json:"result"`
		}
		if json.Unmarshal(answer, &next) != nil || next.Result.NextCursor == "" {
			return true
		}
		cursor = next.Result.NextCursor
	}
	return learned
}

// deliver hands a server message to the proxy, noting the protocol
// version an initialize result negotiated and the header annotations a
// tools/list result carries.
func (u *httpUpstream) deliver(msg []byte) {
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &r) == nil && isRevision(r.Result.ProtocolVersion) {
		u.mu.Lock()
		u.version = r.Result.ProtocolVersion
		u.mu.Unlock()
	}
	u.tools.learn(msg)
	u.p.serverLine(msg)
}

// listen opens the optional GET stream for messages the server sends on
// its own (notifications, requests to the client). A server without one
// answers 405, which is fine.
func (u *httpUpstream) listen() {
	req, err := u.request(u.ctx, http.MethodGet, nil)
	if err != nil {
		return
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := u.client.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		readEvents(resp.Body, u.p.o.MaxMessage, u.deliver, u.p.serverTooLong)
	}
}

// fail answers a request the server could not, so the client never hangs.
//
// why may hold the upstream's own words (an error page that echoes the
// request, credentials included): the plugin redacts it (abi.ProxyError)
// before it reaches the client, and so the model, or stderr; without the
// plugin's answer, neither gets those words.
func (u *httpUpstream) fail(env envelope, why string) {
	id := env.ID
	if len(id) == 0 || !json.Valid(id) {
		id = json.RawMessage("null")
	}
	msg := errorResponse(id, CodeServerGone, "ctxhook proxy: "+why)
	if redacted, err := u.p.decide(abi.ProxyError, msg, nil); err != nil {
		status, _, _ := strings.Cut(why, ":")
		msg = errorResponse(id, CodeServerGone, "ctxhook proxy: "+status+" (the rest withheld: it could not be checked for secrets)")
	} else if redacted != nil {
		msg = redacted
	}
	var shown struct {
		Error struct{ Message string } `json:"error"`
	}
	json.Unmarshal(msg, &shown)
	u.p.warnOnce("http:"+why, "%s", strings.TrimPrefix(shown.Error.Message, "ctxhook proxy: "))
	if len(env.ID) == 0 || env.Method == "" {
		return
	}
	key := idKey(env.ID)
	u.p.mu.Lock()
	pd := u.p.wait[key]
	delete(u.p.wait, key)
	u.p.mu.Unlock()
	if pd != nil {
		pd.timer.Stop()
		u.p.toClient(msg)
	}
}

// close waits briefly for requests in flight, then ends the session.
func (u *httpUpstream) close() {
	done := make(chan struct{})
	go func() { u.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	u.cancel()
	u.mu.Lock()
	sid := u.session
	u.mu.Unlock()
	if sid != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if req, err := u.request(ctx, http.MethodDelete, nil); err == nil {
			if resp, err := u.client.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	}
}

// readEvents calls fn with the data of every server-sent event.
func readEvents(r io.Reader, max int, fn func([]byte), tooLong func(head []byte, size int64)) {
	var data bytes.Buffer
	var size int64 // of the event's data, kept or not
	flush := func() {
		if size > int64(max) {
			tooLong(data.Bytes(), size)
		} else if d := bytes.TrimSpace(data.Bytes()); len(d) > 0 {
			fn(bytes.Clone(d))
		}
		data.Reset()
		size = 0
	}
	scanLines(r, max, func(line []byte) {
		l := bytes.TrimRight(line, "\r\n")
		switch {
		case len(l) == 0:
			flush()
		case bytes.HasPrefix(l, []byte("data:")):
			d := bytes.TrimPrefix(bytes.TrimPrefix(l, []byte("data:")), []byte(" "))
			if size > 0 {
				size++
			}
			size += int64(len(d))
			if size > int64(max) {
				// Past the limit: only the head (where the id is) is kept.
				if data.Len() < headBytes {
					data.Write(d[:min(len(d), headBytes-data.Len())])
				}
				return
			}
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.Write(d)
		}
	}, tooLong)
	flush()
}

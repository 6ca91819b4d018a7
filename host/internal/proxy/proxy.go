// Package proxy is `ctxhook proxy`: it stands in for an MCP server on
// stdio, in front of the real server (a child process on stdio, or a
// streamable-HTTP endpoint), and passes every message through, asking the plugin (mcp-proxy dialect) about tools/call requests
// and their responses: inject the session token, capture the next one from
// the result's _meta, hide it from the client, record the full result.
//
// Everything else (notifications, progress, cancellation, ping, resources,
// prompts, sampling, elicitation, roots, unknown methods and fields, ids,
// batches) is forwarded untouched. Requests are pipelined, never serialised.
// A server that crashes, hangs or writes garbage gives the client JSON-RPC
// errors for its pending requests, never a hung client; the proxy exits
// when the client closes stdin, and reaps the child.
package proxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/decider"
	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/memtrim"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// Options configure one proxy.
type Options struct {
	// Name is the server's name in ctxhook's config ([servers.<name>]).
	Name string
	// Command runs the real server (stdio); or
	Command []string
	// URL is a streamable-HTTP MCP endpoint to forward to instead.
	URL string
	// Headers are sent with every HTTP request (e.g. Authorization).
	Headers map[string]string
	// Session identifies this client connection (default: random).
	Session string
	// Timeout is how long a request may wait for the server's answer
	// before the client gets an error (default 10 minutes).
	Timeout time.Duration
	// MaxMessage bounds one message (a line) either way, in bytes
	// (default DefaultMaxMessage): a longer one is discarded as it
	// arrives and its request answered with an error, so that a server
	// writing a gigabyte without a newline cannot take the proxy's memory.
	MaxMessage int
	Stdin      io.Reader
	Stdout     io.Writer
	Stderr     io.Writer
	Getenv     func(string) string
}

// Error codes sent to the client when the server cannot answer.
const (
	CodeServerGone    = -32000
	CodeServerTimeout = -32001
	// CodeUndecided answers a tools/call whose result the plugin could
	// not check for a relay token (fail closed).
	CodeUndecided = -32002
	// CodeTooLarge answers a request whose answer (or which itself) was
	// over MaxMessage.
	CodeTooLarge = -32003
)

// requestDeadline is how long the daemon may take to decide on a
// tools/call request before the proxy decides it in-process.
const requestDeadline = 3 * time.Second

// DefaultMaxMessage is the largest message the proxy passes: what the
// daemon takes for a decision (hookproto.MaxInput), less room for the
// request it is decided with.
const DefaultMaxMessage = hookproto.MaxInput - 1<<20

type pending struct {
	request json.RawMessage
	isCall  bool
	timer   *time.Timer
}

// upstream is the real server: a child process on stdio, or an HTTP
// endpoint. It delivers the server's messages to proxy.serverLine.
type upstream interface {
	send(msg []byte)
	// close ends the connection once the client has gone.
	close()
}

type proxy struct {
	o     Options
	dec   *decider.Decider
	outMu sync.Mutex
	out   *bufio.Writer
	up    upstream
	mu    sync.Mutex
	wait  map[string]*pending
	gone  string // why the server cannot answer any more; "" while it runs
	// upID names the server's process for the plugin (a stdio child's pid
	// and start time): under a fixed --session, a new process is how the
	// plugin learns a token held may be unknown to the server. Set before
	// the first message is read.
	upID   string
	warned map[string]bool
	config string // config.toml's path
	// late counts the late decisions still being finished (finishLate):
	// the proxy waits for them before it exits, or the event a pointer
	// it gave the client names might never be stored.
	late sync.WaitGroup
}

// Run proxies until the client closes stdin. It returns the exit code.
func Run(ctx context.Context, o Options) int {
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.MaxMessage <= 0 || o.MaxMessage > DefaultMaxMessage {
		o.MaxMessage = DefaultMaxMessage
	}
	if o.Session == "" {
		var b [6]byte
		rand.Read(b[:])
		o.Session = "proxy-" + hex.EncodeToString(b[:])
	}
	p := &proxy{o: o, out: bufio.NewWriterSize(o.Stdout, 1<<16), wait: map[string]*pending{}, warned: map[string]bool{}}
	paths, err := paths.Resolve(o.Getenv)
	if err != nil {
		p.logf("%v", err)
		return 1
	}
	p.config = paths.Config
	// The server starts at once; the plugin is made ready meanwhile.
	p.dec = decider.New(o.Getenv, paths, p.warnOnce)
	defer p.dec.Close()

	if o.URL != "" {
		p.up = newHTTPUpstream(p)
	} else if p.up, err = startStdio(p); err != nil {
		p.logf("%v", err)
		return 1
	}
	in := pollable(o.Stdin)
	p.fromClient(in)
	runtime.KeepAlive(in) // its finalizer would close the client's stdin
	p.up.close()
	p.awaitLate(lateWait)
	return 0
}

// stdioUpstream runs the server as a child process in its own process
// group, so that nothing it starts outlives the proxy.
type stdioUpstream struct {
	p     *proxy
	child *exec.Cmd
	mu    sync.Mutex
	in    io.WriteCloser
	done  chan struct{}
}

func startStdio(p *proxy) (*stdioUpstream, error) {
	u := &stdioUpstream{p: p, done: make(chan struct{})}
	u.child = exec.Command(p.o.Command[0], p.o.Command[1:]...)
	u.child.Stderr = p.o.Stderr
	u.child.SysProcAttr = groupAttr()
	var err error
	if u.in, err = u.child.StdinPipe(); err != nil {
		return nil, err
	}
	out, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	u.child.Stdout = w
	err = u.child.Start()
	w.Close()
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("cannot start MCP server %q: %v", p.o.Name, err)
	}
	p.upID = fmt.Sprintf("stdio:%d:%d", u.child.Process.Pid, time.Now().UnixNano())
	read := make(chan struct{})
	go func() {
		defer close(read)
		readLines(out, p.o.MaxMessage, p.serverLine, p.serverTooLong)
	}()
	go func() {
		defer close(u.done)
		err := u.child.Wait()
		// What the server started may still hold its stdout (a grandchild
		// in the background): that group is ended, and what the server
		// wrote before it exited is read for at most two seconds more.
		endGroup(u.child.Process, true)
		select {
		case <-read:
		case <-time.After(2 * time.Second):
			out.Close()
			<-read
		}
		p.serverGone(fmt.Sprintf("MCP server %q exited (%v)", p.o.Name, exitText(err)))
	}()
	return u, nil
}

func (u *stdioUpstream) send(m []byte) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, err := u.in.Write(append(m, '\n')); err != nil {
		u.p.warnOnce("write", "cannot write to the MCP server: %v", err)
	}
}

// close closes the server's stdin, gives it a moment to finish, then ends
// its process group.
func (u *stdioUpstream) close() {
	u.mu.Lock()
	u.in.Close()
	u.mu.Unlock()
	select {
	case <-u.done:
	case <-time.After(2 * time.Second):
		endGroup(u.child.Process, false)
		select {
		case <-u.done:
		case <-time.After(2 * time.Second):
			endGroup(u.child.Process, true)
			<-u.done
		}
	}
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

func (p *proxy) logf(format string, a ...any) {
	fmt.Fprintf(p.o.Stderr, "ctxhook proxy %s: %s\n", p.o.Name, fmt.Sprintf(format, a...))
}

// warnOnce logs a message kind once per proxy, so a misbehaving server
// cannot flood the client's log.
func (p *proxy) warnOnce(kind, format string, a ...any) {
	p.mu.Lock()
	seen := p.warned[kind]
	p.warned[kind] = true
	p.mu.Unlock()
	if !seen {
		p.logf(format, a...)
	}
}

// headBytes is how much of a message over the limit is kept for its
// tooLong handler: where a JSON-RPC id usually is.
const headBytes = 64 << 10

// readLines calls fn with every newline-delimited message of at most max
// bytes. A longer one is discarded as it arrives (memory stays about max)
// and tooLong gets its first headBytes and its size.
func readLines(r io.Reader, max int, fn func([]byte), tooLong func(head []byte, size int64)) {
	scanLines(r, max, func(line []byte) {
		if t := bytes.TrimSpace(line); len(t) > 0 {
			fn(t)
		}
	}, tooLong)
}

// scanLines is readLines with every line as it came (its newline and
// blank lines included).
func scanLines(r io.Reader, max int, fn func([]byte), tooLong func(head []byte, size int64)) {
	br := bufio.NewReaderSize(r, 1<<20)
	var parts [][]byte // a line's full buffers so far, copied
	var size int64
	var head []byte // set once the line is over max
	for {
		chunk, err := br.ReadSlice('\n')
		size += int64(len(chunk))
		switch {
		case head != nil:
		case size > int64(max):
			head = joinParts(parts, chunk, headBytes)
			parts = nil
		case err == bufio.ErrBufferFull:
			parts = append(parts, append([]byte(nil), chunk...))
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if head != nil {
			tooLong(head, size)
		} else if size > 0 {
			fn(joinParts(parts, chunk, max+1))
		}
		parts, size, head = nil, 0, nil
		if err != nil {
			return
		}
	}
}

// joinParts returns a new slice of parts and then last, at most limit bytes.
func joinParts(parts [][]byte, last []byte, limit int) []byte {
	n := len(last)
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, min(n, limit))
	for _, p := range append(parts, last) {
		b = append(b, p[:min(len(p), limit-len(b))]...)
	}
	return b
}

// serverTooLong answers the request a server message over MaxMessage was
// for, when its id can be read from the message's head.
func (p *proxy) serverTooLong(head []byte, size int64) {
	p.warnOnce("too-long", "the MCP server wrote a message of %d MiB, over the limit of %d MiB (--max-message); dropped", size>>20, p.o.MaxMessage>>20)
	env, _ := parseEnvelope(head)
	if len(env.ID) == 0 || env.Method != "" || !json.Valid(env.ID) {
		return
	}
	if pd := p.take(idKey(env.ID)); pd != nil {
		pd.timer.Stop()
		p.toClient(errorResponse(env.ID, CodeTooLarge, fmt.Sprintf("ctxhook proxy: the MCP server's answer is %d MiB, over the proxy's limit of %d MiB (--max-message)", size>>20, p.o.MaxMessage>>20)))
	}
}

// clientTooLong answers a client request over MaxMessage with an error:
// it never reaches the server.
func (p *proxy) clientTooLong(head []byte, size int64) {
	p.warnOnce("client-too-long", "the client wrote a message of %d MiB, over the limit of %d MiB (--max-message); dropped", size>>20, p.o.MaxMessage>>20)
	if env, _ := parseEnvelope(head); len(env.ID) > 0 && env.Method != "" && json.Valid(env.ID) {
		p.toClient(errorResponse(env.ID, CodeTooLarge, fmt.Sprintf("ctxhook proxy: the request is %d MiB, over the proxy's limit of %d MiB (--max-message)", size>>20, p.o.MaxMessage>>20)))
	}
}

func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// fromClient forwards client messages to the server.
func (p *proxy) fromClient(r io.Reader) {
	readLines(r, p.o.MaxMessage, func(line []byte) {
		if out := eachMessage(line, p.clientMessage); out != nil {
			p.toServer(out)
		}
	}, p.clientTooLong)
}

// eachMessage applies fn to a message, or to each message of a batch
// (keeping the batch's order and dropping what fn drops), and returns the
// line to forward, or nil. A batch that does not decode is forwarded as is.
func eachMessage(line []byte, fn func(json.RawMessage) json.RawMessage) []byte {
	if line[0] != '[' {
		return fn(line)
	}
	var batch []json.RawMessage
	if json.Unmarshal(line, &batch) != nil {
		return line
	}
	kept := batch[:0]
	for _, m := range batch {
		if out := fn(m); out != nil {
			kept = append(kept, out)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	b, _ := json.Marshal(kept)
	return b
}

// clientMessage tracks a request and lets the plugin rewrite a tools/call.
func (p *proxy) clientMessage(m json.RawMessage) json.RawMessage {
	env, ok := parseEnvelope(m)
	if !ok || len(env.ID) == 0 || env.Method == "" {
		return m // notifications, responses to server requests, anything else
	}
	isCall := env.Method == "tools/call"
	out := m
	if isCall {
		// A request the plugin could not decide goes out as it came: the
		// worst that does is a server asking for its token again.
		if rewritten, err := p.decide(abi.ProxyRequest, m, nil); err != nil {
			p.warnOnce("plugin:request", "no decision on a tools/call, forwarding it untouched: %v", err)
		} else if rewritten != nil {
			out = rewritten
		}
	}
	key := idKey(env.ID)
	p.mu.Lock()
	gone := p.gone
	if gone == "" {
		pd := &pending{request: out, isCall: isCall}
		pd.timer = time.AfterFunc(p.o.Timeout, func() { p.expire(key, env.ID) })
		p.wait[key] = pd
	}
	p.mu.Unlock()
	if gone != "" {
		p.toClient(errorResponse(env.ID, CodeServerGone, "ctxhook proxy: "+gone))
		return nil
	}
	return out
}

func (p *proxy) toServer(m []byte) {
	if m != nil {
		p.up.send(m)
	}
}

// serverLine forwards one message (or batch) from the server to the
// client. Every line is checked as JSON before it goes on; a tools/call
// result the plugin decides on is checked by the plugin's own parse (a
// second check cost several ms per MiB of result).
func (p *proxy) serverLine(line []byte) {
	// The server's message is the big one: a late result's shaped answer
	// is small, so trimming only after toClient missed it.
	defer memtrim.After(int64(len(line)))
	if line[0] == '[' && !json.Valid(line) {
		p.garbage(line)
		return
	}
	if out := eachMessage(line, p.serverMessage); out != nil {
		p.toClient(out)
	}
}

// brokenAnswer is the error a request gets when the server's answer to
// it is not JSON.
func brokenAnswer(id json.RawMessage) []byte {
	return errorResponse(id, CodeServerGone, "ctxhook proxy: the MCP server answered with a line that is not JSON")
}

// isObject reports whether a valid JSON message is an object: a JSON-RPC
// message is one, and anything else (123, "str", null) is not passed on.
func isObject(m []byte) bool {
	t := bytes.TrimSpace(m)
	return len(t) > 0 && t[0] == '{'
}

func (p *proxy) garbage(line []byte) {
	p.warnOnce("garbage", "the MCP server wrote a line that is not JSON-RPC (%d bytes); dropped", len(line))
}

// serverMessage matches a response to its request and lets the plugin
// rewrite a tools/call result. A response to a request that already timed
// out is dropped: the client has had its error.
func (p *proxy) serverMessage(m json.RawMessage) json.RawMessage {
	env, ok := parseEnvelope(m)
	if !ok || len(env.ID) == 0 || env.Method != "" || !json.Valid(env.ID) {
		if json.Valid(m) && isObject(m) {
			return m // notifications and server-to-client requests
		}
		p.garbage(m)
		// A broken answer whose id could still be read (parseEnvelope
		// keeps what it read before it failed): its request gets an
		// error now rather than at its timeout.
		if len(env.ID) > 0 && env.Method == "" && json.Valid(env.ID) {
			if pd := p.take(idKey(env.ID)); pd != nil {
				pd.timer.Stop()
				return brokenAnswer(env.ID)
			}
		}
		return nil
	}
	pd := p.take(idKey(env.ID))
	if pd == nil {
		if !json.Valid(m) {
			p.garbage(m)
		}
		return nil
	}
	pd.timer.Stop()
	if !pd.isCall {
		if !json.Valid(m) {
			p.garbage(m)
			return brokenAnswer(env.ID)
		}
		return m
	}
	return p.respond(m, env.ID, pd.request)
}

// respond is the line to forward for m, the answer to the tools/call
// request: the plugin's, or when it made none, m with its token hidden
// (fail closed: a result whose decision failed may carry a relay
// token). The plugin's strip path captures it and hides it, nothing
// more; without that answer either, the client gets an error in the
// result's place, never the token. A large result is then shaped by the
// proxy itself (late.go).
func (p *proxy) respond(m []byte, id, request json.RawMessage) []byte {
	reqID := p.dec.NewID()
	rewritten, err := p.decideAs(reqID, abi.ProxyResponse, m, request)
	if err != nil && !json.Valid(m) {
		p.garbage(m)
		return brokenAnswer(id)
	}
	if err == nil {
		if rewritten != nil {
			return rewritten
		}
		return m
	}
	if errors.Is(err, decider.ErrLate) {
		p.late.Add(1)
		go func() {
			defer p.late.Done()
			p.finishLate(reqID, m, request)
		}()
	}
	if len(m) >= ownShapeMin {
		p.warnOnce("plugin:late", "no decision on a tools/call result of %d MiB (%v); the client gets its head", len(m)>>20, err)
		if out, ok := p.shapeOnOwn(m, request, id, reqID, err); ok {
			return out
		}
	}
	p.warnOnce("plugin:response", "no decision on a tools/call result (%v); passing it on with its session token removed", err)
	stripped, err := p.decide(abi.ProxyStrip, m, request)
	if err != nil {
		p.logf("cannot remove the session token from a result (%v); the client gets an error instead", err)
		return errorResponse(id, CodeUndecided, "ctxhook proxy: the result could not be checked for the server's session token, so it was withheld")
	}
	if stripped != nil {
		return stripped
	}
	return m
}

// take removes and returns the request waiting for the answer with this
// id key, or nil.
func (p *proxy) take(key string) *pending {
	p.mu.Lock()
	defer p.mu.Unlock()
	pd := p.wait[key]
	if pd != nil {
		delete(p.wait, key)
	}
	return pd
}

func (p *proxy) toClient(m []byte) {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	p.out.Write(m)
	p.out.WriteByte('\n')
	p.out.Flush()
	memtrim.After(int64(len(m))) // an idle proxy keeps no big message's memory
}

// decide asks the plugin about a message: the line to forward instead,
// or nil to forward it unchanged. An error means no decision.
func (p *proxy) decide(event string, msg, request json.RawMessage) (json.RawMessage, error) {
	return p.decideAs(p.dec.NewID(), event, msg, request)
}

// decideAs is decide for a payload named reqID (decider.NewID). The
// daemon decides a result within a deadline that grows with its size
// (decider.Deadline), and a request within requestDeadline: a request
// it has not decided by then (its instance busy) is decided in-process,
// so that its call still gets its token.
func (p *proxy) decideAs(reqID, event string, msg, request json.RawMessage) (json.RawMessage, error) {
	payload := proxyPayload(p.o.Session, p.o.Name, p.upID, msg, request)
	deadline := decider.Deadline(hookproto.Hook(p.o.Getenv), len(payload))
	if event == abi.ProxyRequest {
		deadline = requestDeadline
	}
	stdout, err := p.dec.DecideWithin(context.Background(), reqID, abi.HarnessMCPProxy, event, payload, deadline)
	if errors.Is(err, decider.ErrLate) && event == abi.ProxyRequest {
		stdout, err = p.dec.DecideHere(context.Background(), reqID, abi.HarnessMCPProxy, event, payload)
	}
	if err != nil {
		return nil, err
	}
	out := bytes.TrimSpace([]byte(stdout))
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

func (p *proxy) expire(key string, id json.RawMessage) {
	p.mu.Lock()
	_, ok := p.wait[key]
	delete(p.wait, key)
	p.mu.Unlock()
	if ok {
		p.warnOnce("timeout", "the MCP server did not answer within %v; the client got an error", p.o.Timeout)
		p.toClient(errorResponse(id, CodeServerTimeout, fmt.Sprintf("ctxhook proxy: MCP server %q did not answer within %v", p.o.Name, p.o.Timeout)))
	}
}

// serverGone answers every pending request with an error and makes later
// requests fail at once.
func (p *proxy) serverGone(why string) {
	p.mu.Lock()
	p.gone = why
	waiting := p.wait
	p.wait = map[string]*pending{}
	p.mu.Unlock()
	p.logf("%s", why)
	for _, pd := range waiting {
		pd.timer.Stop()
		env, _ := parseEnvelope(pd.request)
		p.toClient(errorResponse(env.ID, CodeServerGone, "ctxhook proxy: "+why+" before answering"))
	}
}

func errorResponse(id json.RawMessage, code int, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": msg}})
	return b
}

// pollable returns r as a file the Go runtime's poller waits on, when r
// is a pipe or socket (the client's end of stdio). os.Stdin is read with
// a blocking system call, and while one is in progress an idle proxy
// noticed the server's answer only when the runtime's monitor next
// polled: about 10 ms late on every tools/call.
func pollable(r io.Reader) io.Reader { return nonblocking(r) }

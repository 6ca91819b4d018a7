// Command testmcp is the MCP server ctxhook's end-to-end tests and demo
// recording run against: newline-delimited JSON-RPC on stdio, no
// dependencies, every message in and out logged to $TESTMCP_LOG.
//
// -mode workflow: start_session issues a session token (about 480
// characters) and every step needs the current one and rotates it; a wrong
// or missing token is an error, so a relay bug fails loudly. The token is in
// the result's _meta and in a JSON text block (Claude Code hooks only see
// content blocks).
//
// -tokens chooses how workflow tokens live, for the tests of a resume
// (each run of the agent starts the server anew): "process" holds sessions
// in the process's memory, so its tokens die with it and a step given an
// unknown one is rejected ("unknown session"); "signed" issues tokens
// signed with a fixed key, naming the session and its next step, so they
// stay valid across a restart and a step out of order is refused. In
// both, a step without a token starts a new session (its result says so).
// The default ("") is the strict server above.
//
// -modern answers server/discover (MCP 2026-07-28), so a client that
// probes with it never sends initialize.
//
// -mode tickets: get_ticket returns a long ticket with planted secrets that
// must never reach ctxhook's files; export_log returns a log of the size
// asked for (in MiB), the planted key in its middle and the term
// ZQLASTMARK in its last line, for the paths a big response takes;
// get_secret returns the text of the held-secret corpus's item (index),
// one secret of a kind planted in it.
package main

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxhook/ctxhook/internal/secretcorpus"
)

type server struct {
	mode     string
	logMu    sync.Mutex
	logFile  *os.File
	out      *bufio.Writer
	token    string
	issued   int
	metaOnly bool
	// large makes responses the size real ticket and log servers send
	// (12-20 KB), each with one FACT line well past the first 8 KB.
	large bool
	// modern speaks MCP revision 2026-07-28 too: it answers server/discover,
	// so a client that probes with it skips initialize.
	modern bool
	// tokens is -tokens: "", "process" or "signed"; sid names the session
	// a process-held token belongs to.
	tokens, sid string
}

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
}

func main() {
	mode := flag.String("mode", "workflow", "workflow or tickets")
	metaOnly := flag.Bool("meta-only", false, "workflow: put the token only in result _meta, as servers that expect a proxy do")
	large := flag.Bool("large", false, "large responses (12-20 KB) with a FACT line deep inside each")
	modern := flag.Bool("modern", false, "speak MCP 2026-07-28 too (answer server/discover)")
	tokens := flag.String("tokens", "", `workflow: "process" (sessions die with the process) or "signed" (tokens survive a restart)`)
	flag.Parse()
	s := &server{mode: *mode, metaOnly: *metaOnly, large: *large, modern: *modern, tokens: *tokens, out: bufio.NewWriter(os.Stdout)}
	if p := os.Getenv("TESTMCP_LOG"); p != "" {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testmcp:", err)
			os.Exit(1)
		}
		s.logFile = f
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	for in.Scan() {
		line := in.Bytes()
		s.log("in", line)
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			s.reply(nil, nil, &rpcError{-32700, "parse error"})
			continue
		}
		if len(m.ID) == 0 {
			continue // notification
		}
		result, rerr := s.handle(m)
		s.reply(m.ID, result, rerr)
	}
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (s *server) reply(id json.RawMessage, result any, rerr *rpcError) {
	resp := map[string]any{"jsonrpc": "2.0", "id": id}
	if rerr != nil {
		resp["error"] = rerr
	} else {
		resp["result"] = result
	}
	b, _ := json.Marshal(resp)
	s.log("out", b)
	s.out.Write(b)
	s.out.WriteByte('\n')
	s.out.Flush()
}

func (s *server) log(dir string, b []byte) {
	if s.logFile == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	rec, _ := json.Marshal(map[string]any{"dir": dir, "server": s.mode, "msg": json.RawMessage(b)})
	if !json.Valid(b) {
		rec, _ = json.Marshal(map[string]any{"dir": dir, "server": s.mode, "raw": string(b)})
	}
	s.logFile.Write(append(rec, '\n'))
}

func (s *server) handle(m message) (any, *rpcError) {
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(m.Params, &p)
		if p.ProtocolVersion == "" {
			p.ProtocolVersion = "2025-06-18"
		}
		return map[string]any{"protocolVersion": p.ProtocolVersion,
			"capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo":   map[string]any{"name": "testmcp-" + s.mode, "version": "1.0.0"}}, nil
	case "server/discover":
		if !s.modern {
			break // method not found: the client falls back to initialize
		}
		return map[string]any{"supportedVersions": []string{"2026-07-28", "2025-11-25"}, "resultType": "complete",
			"capabilities": map[string]any{"tools": map[string]any{}},
			"_meta":        map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "testmcp-" + s.mode, "version": "1.0.0"}}}, nil
	case "ping":
		return map[string]any{}, nil
	case "tools/list":
		return map[string]any{"tools": s.tools()}, nil
	case "resources/list":
		return map[string]any{"resources": []any{}}, nil
	case "resources/templates/list":
		return map[string]any{"resourceTemplates": []any{}}, nil
	case "prompts/list":
		return map[string]any{"prompts": []any{}}, nil
	case "tools/call":
		var p struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, &rpcError{-32602, "bad params"}
		}
		return s.call(p.Name, p.Arguments), nil
	}
	return nil, &rpcError{-32601, "method not found: " + m.Method}
}

func schema(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func (s *server) tools() []any {
	if s.mode == "tickets" {
		return []any{map[string]any{"name": "get_ticket", "description": "Fetch a ticket by id.",
			"inputSchema": schema(map[string]any{"id": map[string]any{"type": "string"}}, "id")},
			map[string]any{"name": "export_log", "description": "Export a ticket's full event log.",
				"inputSchema": schema(map[string]any{"id": map[string]any{"type": "string"}, "mib": map[string]any{"type": "number"}}, "id", "mib")},
			map[string]any{"name": "get_secret", "description": "Fetch a pasted config snippet by index.",
				"inputSchema": schema(map[string]any{"index": map[string]any{"type": "integer"}}, "index")}}
	}
	return []any{
		map[string]any{"name": "start_session", "description": "Start a workflow session.",
			"inputSchema": schema(map[string]any{"workflow": map[string]any{"type": "string"}})},
		map[string]any{"name": "step", "description": "Run the next workflow step. Needs the session token.",
			"inputSchema": schema(map[string]any{"n": map[string]any{"type": "integer"},
				"session_token": map[string]any{"type": "string"}}, "n")},
	}
}

// visible adds the token to the text the client sees, unless -meta-only.
func (s *server) visible(body map[string]any) map[string]any {
	if !s.metaOnly {
		body["session_token"] = s.token
	}
	return body
}

func text(t string) map[string]any { return map[string]any{"type": "text", "text": t} }

func toolError(msg string) map[string]any {
	return map[string]any{"content": []any{text(msg)}, "isError": true}
}

// newToken derives a long opaque token: long and random-looking, as the
// ones models mistype.
func (s *server) newToken() string {
	s.issued++
	var b strings.Builder
	seed := fmt.Sprintf("%s-%d-%d", s.mode, os.Getpid(), s.issued)
	for b.Len() < 480 {
		sum := sha256.Sum256([]byte(seed + b.String()))
		b.WriteString(hex.EncodeToString(sum[:]))
	}
	return "wfs_" + b.String()[:476]
}

func (s *server) call(name string, args map[string]any) any {
	switch {
	case s.mode == "workflow" && name == "start_session" && s.tokens == "signed":
		s.token = signedToken(s.newSessionID(), 1)
		body, _ := json.Marshal(s.visible(map[string]any{"step": 0,
			"message": "Workflow session started. Pass session_token to every step."}))
		return map[string]any{"content": []any{text(string(body))}, "_meta": map[string]any{"session_token": s.token}}
	case s.mode == "workflow" && name == "start_session":
		s.token, s.sid = s.newToken(), s.newSessionID()
		body, _ := json.Marshal(s.visible(map[string]any{"step": 0,
			"message": "Workflow session started. Pass session_token to every step."}))
		return map[string]any{"content": []any{text(string(body))}, "_meta": map[string]any{"session_token": s.token}}
	case s.mode == "workflow" && name == "step" && s.tokens != "":
		return s.resumableStep(args)
	case s.mode == "workflow" && name == "step":
		got, _ := args["session_token"].(string)
		if s.token == "" || got != s.token {
			return toolError(fmt.Sprintf("invalid session token (got %d characters); call start_session again", len(got)))
		}
		n, _ := args["n"].(float64)
		s.token = s.newToken()
		step := struct {
			Step         int    `json:"step"`
			Result       string `json:"result"`
			SessionToken string `json:"session_token,omitempty"`
			Log          string `json:"log,omitempty"`
		}{Step: int(n), Result: fmt.Sprintf("Step %d done: deployment check WF-STEP-%03d passed; canary at %d%%.", int(n), int(n), int(n)*5)}
		if !s.metaOnly {
			step.SessionToken = s.token
		}
		if s.large {
			step.Log = deployLog(int(n))
		}
		body, _ := json.Marshal(step)
		return map[string]any{"content": []any{text(string(body))}, "_meta": map[string]any{"session_token": s.token}}
	case s.mode == "tickets" && name == "get_ticket":
		id, _ := args["id"].(string)
		t := ticket(id)
		if s.large {
			t += ticketHistory(id)
		}
		return map[string]any{"content": []any{text(t)}}
	case s.mode == "tickets" && name == "get_secret":
		i, _ := args["index"].(float64)
		corpus := secretcorpus.Generate(1)
		if int(i) < 0 || int(i) >= len(corpus) {
			return toolError("no such snippet")
		}
		return map[string]any{"content": []any{text(corpus[int(i)].Text)}}
	case s.mode == "tickets" && name == "export_log":
		id, _ := args["id"].(string)
		mib, _ := args["mib"].(float64)
		return map[string]any{"content": []any{text(exportLog(id, int(mib*(1<<20))))}}
	}
	return toolError("unknown tool " + name)
}

// Planted secrets: the e2e tests assert none of these reach ctxhook's files.
const (
	PlantedAWSKey   = "AKIAPLANTEDSECRET123"
	PlantedPassword = "planted-db-password-7f3k"
)

func ticket(id string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Ticket %s: checkout fails with HTTP 502 after the payments deploy\n", id)
	fmt.Fprintf(&b, "Status: open. Assignee: dana. Component: payments-gateway. Root cause suspected in retryPolicyForGateway.\n")
	fmt.Fprintf(&b, "Reporter pasted their environment (should not have):\n  AWS_ACCESS_KEY_ID=%s\n  DB_URL=postgres://svc:%s@db.internal:5432/pay\n  password: %s\n\n", PlantedAWSKey, PlantedPassword, PlantedPassword)
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "Comment %d on %s: observed latency spike in region eu-west-%d, trace id tr-%s-%03d; rollback considered.\n", i, id, i%3+1, strings.ToLower(id), i)
	}
	return b.String()
}

// exportLog is n bytes of a ticket's event log: the planted AWS key in
// its middle line, ZQLASTMARK in its last.
func exportLog(id string, n int) string {
	var b strings.Builder
	b.Grow(n + 200)
	planted := false
	for i := 0; b.Len() < n-100; i++ {
		if !planted && b.Len() >= n/2 {
			fmt.Fprintf(&b, "event %d on %s: credentials rotated, old AWS_ACCESS_KEY_ID=%s\n", i, id, PlantedAWSKey)
			planted = true
		}
		fmt.Fprintf(&b, "event %d on %s: gateway retry %d in eu-west-%d, trace tr-%x\n", i, id, i%7, i%3+1, i*2654435761)
	}
	fmt.Fprintf(&b, "end of log for %s: ZQLASTMARK\n", id)
	return b.String()
}

// deployLog is about 14 KB of a step's deploy log with one fact, past the
// first 8 KB, that exists nowhere else.
func deployLog(n int) string {
	var b strings.Builder
	for i := 1; b.Len() < 9000; i++ {
		fmt.Fprintf(&b, "[step %03d] %02d:%02d:%02d pod payments-%d-%x rolled; readiness ok; p99 %d ms; errors 0\n", n, 10+n%10, i%60, (i*7)%60, i%12, n*977+i, 180+(i*13)%90)
	}
	fmt.Fprintf(&b, "FACT WF-STEP-%03d: canary promoted by approver %s with error budget burn %d.%d%%\n", n, approvers[n%len(approvers)], n%9, (n*7)%10)
	for i := 1; b.Len() < 14000; i++ {
		fmt.Fprintf(&b, "[step %03d] cleanup %d: drained connection pool shard %d in %d ms\n", n, i, i%16, 20+(i*11)%300)
	}
	return b.String()
}

var approvers = []string{"okafor", "lindqvist", "haruki", "moreau", "castellanos", "adeyemi", "novak"}

// ticketHistory is about 10 KB of a ticket's history with one fact, past
// the first 8 KB of the ticket, that exists nowhere else.
func ticketHistory(id string) string {
	var b strings.Builder
	b.WriteString("\nHistory:\n")
	for i := 1; b.Len() < 6000; i++ {
		fmt.Fprintf(&b, "  %s history %d: field %s changed by %s; watchers %d\n", id, i, []string{"status", "priority", "assignee", "labels"}[i%4], approvers[i%len(approvers)], i%9+1)
	}
	sum := sha256.Sum256([]byte(id))
	fmt.Fprintf(&b, "FACT %s: the fix ships in release R-%s behind flag gw_retry_v%d\n", id, hex.EncodeToString(sum[:3]), int(sum[3])%9+2)
	for i := 1; b.Len() < 10000; i++ {
		fmt.Fprintf(&b, "  %s audit %d: viewed by %s\n", id, i, approvers[(i*3)%len(approvers)])
	}
	return b.String()
}

// signingKey signs -tokens signed tokens: the same in every process, as a
// server's key is across its restarts.
const signingKey = "testmcp-workflow-signing-key"

// signedToken is the token of session sid whose next step is next: the
// two, an HMAC of them, and filler derived from it to the length real
// tokens have.
func signedToken(sid string, next int) string {
	body := sid + "." + strconv.Itoa(next)
	mac := hmac.New(sha256.New, []byte(signingKey))
	mac.Write([]byte(body))
	tok := "wfs_" + body + "." + hex.EncodeToString(mac.Sum(nil))
	for len(tok) < 480 {
		sum := sha256.Sum256([]byte(tok))
		tok += hex.EncodeToString(sum[:])
	}
	return tok[:480]
}

// verifySigned returns the session and next step a signed token names.
func verifySigned(tok string) (sid string, next int, ok bool) {
	parts := strings.SplitN(strings.TrimPrefix(tok, "wfs_"), ".", 3)
	if len(parts) != 3 {
		return "", 0, false
	}
	next, err := strconv.Atoi(parts[1])
	if err != nil || !hmac.Equal([]byte(signedToken(parts[0], next)), []byte(tok)) {
		return "", 0, false
	}
	return parts[0], next, true
}

// newSessionID names a new session, different in every process.
func (s *server) newSessionID() string {
	s.issued++
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d-%d-%d", os.Getpid(), time.Now().UnixNano(), s.issued)))
	return "ses" + hex.EncodeToString(sum[:6])
}

// resumableStep is a step under -tokens process or signed.
func (s *server) resumableStep(args map[string]any) any {
	got, _ := args["session_token"].(string)
	nf, _ := args["n"].(float64)
	n := int(nf)
	var sid string
	started := false
	switch {
	case got == "":
		sid, started = s.newSessionID(), true
	case s.tokens == "signed":
		var next int
		var ok bool
		if sid, next, ok = verifySigned(got); !ok {
			return toolError(fmt.Sprintf("invalid session token: bad signature (got %d characters)", len(got)))
		}
		if n != next {
			return toolError(fmt.Sprintf("step %d is out of order: this workflow is at step %d", n, next))
		}
	default:
		if got != s.token {
			return toolError(fmt.Sprintf("unknown session: this server keeps sessions in memory and has none for the token given (%d characters)", len(got)))
		}
		sid = s.sid
	}
	if s.tokens == "signed" {
		s.token = signedToken(sid, n+1)
	} else {
		s.token, s.sid = s.newToken(), sid
	}
	body := map[string]any{"step": n, "session": sid, "result": fmt.Sprintf("Step %d done: deployment check WF-STEP-%03d passed.", n, n)}
	if started {
		body["message"] = "No session token given: a new workflow session was started."
	}
	b, _ := json.Marshal(s.visible(body))
	return map[string]any{"content": []any{text(string(b))}, "_meta": map[string]any{"session_token": s.token}}
}

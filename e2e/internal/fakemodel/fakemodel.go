// Package fakemodel is a scripted stand-in for the Anthropic Messages API,
// the Gemini API and OpenAI's Responses and Chat Completions APIs, served
// on 127.0.0.1, so real Claude Code, Gemini CLI, Codex CLI and OpenCode run
// offline in tests.
//
// It is stateless per request, like the real API: it reads the
// conversation it is sent, counts the scripted tool calls already answered,
// and replies with the next one (as a streamed tool_use), or with a final
// text once the script is done. Requests that offer none of the script's
// tools (title generation and other side requests) get a short text.
//
// Claude Code 2.1.330 defers MCP tools behind ToolSearch: a deferred tool
// is offered only after a ToolSearch result referenced it. The server
// first calls ToolSearch "select:<tool>" in that case, as a real model
// would.
package fakemodel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
)

// Step is one scripted tool call.
type Step struct {
	Tool  string         `json:"tool"`
	Input map[string]any `json:"input"`
	// InputFrom, when set, builds the input from the text of the previous
	// scripted call's result (a model reading an id off a search result).
	InputFrom func(previous string) map[string]any `json:"-"`
}

// Server is a running fake model.
type Server struct {
	URL    string
	Script []Step
	Final  string
	// CountFrom, when set, names a run of its own (Continue): only the
	// calls made in it count towards its script, so a resumed (or
	// compacted) session carries on with a script of its own.
	CountFrom string
	// LogPath, when set, receives every request as a JSON line.
	LogPath string

	mu       sync.Mutex
	requests [][]byte
	srv      *http.Server
	ln       net.Listener
}

// Start serves the script on 127.0.0.1 until Close.
func Start(script []Step, final string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), Script: script, Final: final, ln: ln}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln)
	return s, nil
}

// Continue gives the runs from now on script, under the name countFrom
// (a resumed session's prompt): the calls this model made before, under
// another name, are another run's and do not count.
func (s *Server) Continue(script []Step, countFrom string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Script, s.CountFrom = script, countFrom
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Requests returns the bodies of every POST received so far.
func (s *Server) Requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.requests...)
}

type request struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name         string `json:"name"`
		DeferLoading bool   `json:"defer_loading"`
	} `json:"tools"`
}

type block struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolName  string          `json:"tool_name"`
	Content   json.RawMessage `json:"content"`
}

func blocks(raw json.RawMessage) []block {
	var bs []block
	if json.Unmarshal(raw, &bs) != nil {
		return nil
	}
	return bs
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusOK)
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, body)
	if s.LogPath != "" {
		if f, err := os.OpenFile(s.LogPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			rec, _ := json.Marshal(map[string]any{"path": r.URL.String(), "body": json.RawMessage(body)})
			f.Write(append(rec, '\n'))
			f.Close()
		}
	}
	s.mu.Unlock()
	if strings.HasPrefix(r.URL.Path, "/v1beta/models/") {
		if strings.HasSuffix(r.URL.Path, ":countTokens") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"totalTokens":10}`)
			return
		}
		s.serveGemini(w, r, body)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/responses") {
		s.serveResponses(w, body)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/chat/completions") {
		s.serveChat(w, body)
		return
	}
	if !strings.HasPrefix(r.URL.Path, "/v1/messages") || strings.Contains(r.URL.Path, "count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":10}`)
		return
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	kind, payload := s.next(req, body)
	if !req.Stream {
		writeJSON(w, kind, payload)
		return
	}
	writeSSE(w, kind, payload)
}

// next decides the reply: ("tool_use", {name,input,id}) or ("text", text).
func (s *Server) next(req request, body []byte) (string, map[string]any) {
	s.mu.Lock()
	script, countFrom := s.Script, s.CountFrom
	s.mu.Unlock()
	offered := map[string]bool{}
	deferred := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Name] = true
		if t.DeferLoading {
			deferred[t.Name] = true
		}
	}
	scripted := map[string]bool{}
	main := false
	for _, st := range script {
		scripted[st.Tool] = true
		// A deferred tool is not in the tool list: Claude Code names it in a
		// system-reminder and expects a ToolSearch first.
		// A compaction drops the reminder; a resumed run's model (CountFrom)
		// searches for the tool its script names all the same.
		if !offered[st.Tool] && offered["ToolSearch"] && (countFrom != "" || bytes.Contains(body, []byte(st.Tool))) {
			offered[st.Tool], deferred[st.Tool] = true, true
		}
		if offered[st.Tool] {
			main = true
		}
	}
	if !main {
		return "text", map[string]any{"text": "ok"}
	}
	// Walk the conversation: which tool_use ids were scripted calls, which
	// tools a ToolSearch result has loaded.
	callName := map[string]string{}
	referenced := map[string]bool{}
	done := 0
	previous := ""
	tag := "" // a run of its own (Continue) marks its calls' ids
	if countFrom != "" {
		sum := sha256.Sum256([]byte(countFrom))
		tag = "_r" + hex.EncodeToString(sum[:4])
	}
	for _, m := range req.Messages {
		for _, b := range blocks(m.Content) {
			switch b.Type {
			case "tool_use":
				callName[b.ID] = b.Name
			case "tool_result":
				// A compaction merges every result into one message,
				// before the prompt: this run's calls are told by their id.
				if scripted[callName[b.ToolUseID]] && strings.HasSuffix(b.ToolUseID, tag) {
					done++
					previous = resultText(b.Content)
				}
				for _, inner := range blocks(b.Content) {
					if inner.Type == "tool_reference" {
						referenced[inner.ToolName] = true
					}
				}
			}
		}
	}
	if done >= len(script) {
		return "text", map[string]any{"text": s.Final}
	}
	st := script[done]
	id := fmt.Sprintf("toolu_fake%03d_%d%s", done, len(req.Messages), tag)
	if deferred[st.Tool] && !referenced[st.Tool] && offered["ToolSearch"] {
		return "tool_use", map[string]any{"id": id + "s", "name": "ToolSearch",
			"input": map[string]any{"query": "select:" + st.Tool, "max_results": 1}}
	}
	input := st.Input
	if st.InputFrom != nil {
		input = st.InputFrom(previous)
	}
	if input == nil {
		input = map[string]any{}
	}
	return "tool_use", map[string]any{"id": id, "name": st.Tool, "input": input}
}

// resultText is the text of a tool_result's content (a string or blocks).
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b strings.Builder
	var texts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &texts)
	for _, t := range texts {
		b.WriteString(t.Text)
	}
	return b.String()
}

func usage() map[string]any { return map[string]any{"input_tokens": 100, "output_tokens": 20} }

func writeJSON(w http.ResponseWriter, kind string, p map[string]any) {
	content := []any{}
	stop := "end_turn"
	if kind == "text" {
		content = append(content, map[string]any{"type": "text", "text": p["text"]})
	} else {
		content = append(content, map[string]any{"type": "tool_use", "id": p["id"], "name": p["name"], "input": p["input"]})
		stop = "tool_use"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": "msg_fake", "type": "message", "role": "assistant",
		"model": "claude-sonnet-4-5", "content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage()})
}

func writeSSE(w http.ResponseWriter, kind string, p map[string]any) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	ev := func(name string, data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_fake",
		"type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage()}})
	stop := "end_turn"
	if kind == "text" {
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": p["text"]}})
	} else {
		in, _ := json.Marshal(p["input"])
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": p["id"], "name": p["name"], "input": map[string]any{}}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		stop = "tool_use"
	}
	ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 20}})
	ev("message_stop", map[string]any{"type": "message_stop"})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The OpenAI dialects: the Responses API (Codex CLI, POST /v1/responses)
// and Chat Completions (OpenCode, POST /v1/chat/completions), both
// streamed as server-sent events.

// splitScripted maps a script tool (mcp__<server>__<tool>) to the names the
// clients give MCP tools: Codex puts it in a namespace "mcp__<server>"
// with the bare tool name; OpenCode calls it <server>_<tool>.
func splitScripted(tool string) (server, name string) {
	rest := strings.TrimPrefix(tool, "mcp__")
	server, name, _ = strings.Cut(rest, "__")
	return server, name
}

type responsesRequest struct {
	Input []struct {
		Type      string `json:"type"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
		CallID    string `json:"call_id"`
	} `json:"input"`
	Tools []struct {
		Type  string `json:"type"`
		Name  string `json:"name"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	} `json:"tools"`
}

func (s *Server) serveResponses(w http.ResponseWriter, body []byte) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	offered := map[string]bool{} // "namespace/name" or "/name"
	for _, t := range req.Tools {
		offered[t.Name] = true
		for _, inner := range t.Tools {
			offered[t.Name+"/"+inner.Name] = true
		}
	}
	main := false
	scripted := map[string]bool{}
	for _, st := range s.Script {
		server, name := splitScripted(st.Tool)
		key := "mcp__" + server + "/" + name
		scripted[key] = true
		main = main || offered[key] || offered[st.Tool]
	}
	var item map[string]any
	if !main {
		item = outputMessage("ok")
	} else {
		calls := map[string]string{}
		done := 0
		for _, in := range req.Input {
			switch in.Type {
			case "function_call":
				calls[in.CallID] = in.Namespace + "/" + in.Name
			case "function_call_output":
				if scripted[calls[in.CallID]] {
					done++
				}
			}
		}
		if done >= len(s.Script) {
			item = outputMessage(s.Final)
		} else {
			st := s.Script[done]
			server, name := splitScripted(st.Tool)
			args, _ := json.Marshal(orEmpty(st.Input))
			item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%03d", done),
				"call_id": fmt.Sprintf("call_fake%03d", done), "namespace": "mcp__" + server, "name": name,
				"arguments": string(args), "status": "completed"}
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	ev := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
	}
	resp := map[string]any{"id": "resp_fake", "object": "response", "created_at": time.Now().Unix(),
		"status": "in_progress", "model": "fake-model", "output": []any{}}
	ev(map[string]any{"type": "response.created", "response": resp})
	ev(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	ev(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	done := map[string]any{"id": "resp_fake", "object": "response", "status": "completed", "model": "fake-model",
		"output": []any{item}, "usage": map[string]any{"input_tokens": 100, "output_tokens": 20, "total_tokens": 120,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}
	ev(map[string]any{"type": "response.completed", "response": done})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func outputMessage(text string) map[string]any {
	return map[string]any{"type": "message", "id": "msg_fake", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

type chatRequest struct {
	Messages []struct {
		Role       string `json:"role"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (s *Server) serveChat(w http.ResponseWriter, body []byte) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Function.Name] = true
	}
	// Factory Droid (ToolSearch) and Qwen Code (tool_search) offer MCP
	// tools only once the model has asked for them with their search tool.
	var searchTool string
	switch {
	case offered["ToolSearch"]:
		searchTool = "ToolSearch"
	case offered["tool_search"] && offered["tool_call"]:
		searchTool = "tool_search"
	}
	// The name a client gives an MCP tool: Pi's mcp__<server>__<tool> (the
	// script's), OpenCode's <server>_<tool>,
	// Droid's <server>___<tool>, OpenClaw's and Cline's <server>__<tool>,
	// GitHub Copilot CLI's <server>-<tool>; Continue CLI's bare <tool>;
	// whichever is offered. Qwen Code keeps the script's mcp__ name.
	name := func(tool string) string {
		if offered[tool] { // the script's own mcp__ name (Pi)
			return tool
		}
		server, n := splitScripted(tool)
		for _, sep := range []string{"-", "___", "__", "_"} {
			if offered[server+sep+n] {
				return server + sep + n
			}
		}
		if offered[n] { // Continue CLI's bare MCP tool name
			return n
		}
		switch searchTool {
		case "ToolSearch":
			return server + "___" + n
		case "tool_search":
			return tool
		}
		return server + "_" + n
	}
	main := false
	scripted := map[string]bool{}
	var names []string
	for _, st := range s.Script {
		if !scripted[name(st.Tool)] {
			names = append(names, name(st.Tool))
		}
		scripted[name(st.Tool)] = true
		main = main || offered[name(st.Tool)]
	}
	hidden := !main && searchTool != "" && len(names) > 0
	// Qwen Code never offers them: the model calls them through tool_call
	// {name, arguments}.
	qwen := hidden && searchTool == "tool_search"
	if qwen {
		scripted["tool_call"] = true
		main = true
	}
	searched := false
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			searched = searched || c.Function.Name == searchTool
		}
	}
	var delta map[string]any
	finish := "stop"
	if hidden && !searched {
		args, _ := json.Marshal(map[string]string{"query": "select:" + strings.Join(names, ",")})
		delta = map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_search", "type": "function",
			"function": map[string]any{"name": searchTool, "arguments": string(args)}}}}
		finish = "tool_calls"
	} else if !main {
		delta = map[string]any{"role": "assistant", "content": "ok"}
	} else {
		calls := map[string]string{}
		done := 0
		for _, m := range req.Messages {
			for _, c := range m.ToolCalls {
				calls[c.ID] = c.Function.Name
			}
			if m.Role == "tool" && scripted[calls[m.ToolCallID]] {
				done++
			}
		}
		if done >= len(s.Script) {
			delta = map[string]any{"role": "assistant", "content": s.Final}
		} else {
			st := s.Script[done]
			args, _ := json.Marshal(orEmpty(st.Input))
			fn := name(st.Tool)
			if qwen {
				args, _ = json.Marshal(map[string]any{"name": st.Tool, "arguments": orEmpty(st.Input)})
				fn = "tool_call"
			}
			delta = map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0,
				"id": fmt.Sprintf("call_fake%03d", done), "type": "function",
				"function": map[string]any{"name": fn, "arguments": string(args)}}}}
			finish = "tool_calls"
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(choice map[string]any, usage any) {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk",
			"created": time.Now().Unix(), "model": "fake-model", "choices": []any{choice}, "usage": usage})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk(map[string]any{"index": 0, "delta": delta, "finish_reason": nil}, nil)
	chunk(map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish},
		map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120})
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

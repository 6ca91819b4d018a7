package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The Gemini API dialect (Gemini CLI): POST
// /v1beta/models/<model>:streamGenerateContent?alt=sse, and the
// non-streaming :generateContent for side requests.

type geminiRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

type geminiPart struct {
	Text         string `json:"text,omitempty"`
	FunctionCall *struct {
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	} `json:"functionCall,omitempty"`
	FunctionResponse *struct {
		Name string `json:"name"`
	} `json:"functionResponse,omitempty"`
}

// geminiName finds the declared function for a scripted tool. Gemini CLI
// names MCP tools mcp_<server>_<tool>; scripts use mcp__<server>__<tool>.
func geminiName(tool string, declared []string) string {
	want := strings.ReplaceAll(tool, "__", "_")
	for _, d := range declared {
		if d == tool || d == want {
			return d
		}
	}
	return ""
}

func (s *Server) serveGemini(w http.ResponseWriter, r *http.Request, body []byte) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var declared []string
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			declared = append(declared, f.Name)
		}
	}
	names := map[string]bool{}
	main := false
	for _, st := range s.Script {
		if n := geminiName(st.Tool, declared); n != "" {
			names[n] = true
			main = true
		}
	}
	var part map[string]any
	switch {
	case !main:
		part = map[string]any{"text": "ok"}
	default:
		done := 0
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if p.FunctionResponse != nil && names[p.FunctionResponse.Name] {
					done++
				}
			}
		}
		if done >= len(s.Script) {
			part = map[string]any{"text": s.Final}
		} else {
			st := s.Script[done]
			args := st.Input
			if args == nil {
				args = map[string]any{}
			}
			part = map[string]any{"functionCall": map[string]any{"name": geminiName(st.Tool, declared), "args": args}}
		}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120},
		"modelVersion":  "gemini-2.5-flash",
	}
	b, _ := json.Marshal(resp)
	if !strings.Contains(r.URL.Path, "streamGenerateContent") {
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

package proxy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// refusingServer is an MCP server over HTTP (2025-06-18) whose one tool,
// run, counts its runs and then answers its call as a header mismatch
// (-32020, HTTP 400), in the form given by mismatch.
type refusingServer struct {
	runs     atomic.Int32
	mismatch func(w http.ResponseWriter, id json.RawMessage)
}

func (s *refusingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(body, &m)
	answer := func(result string) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`))
	}
	switch m.Method {
	case "initialize":
		answer(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"refusing","version":"1"}}`)
	case "tools/list":
		answer(`{"tools":[{"name":"run","inputSchema":{"type":"object"}}]}`)
	case "tools/call":
		s.runs.Add(1)
		s.mismatch(w, m.ID)
	default:
		if len(m.ID) > 0 {
			// A request it does not know (the SDK's server/discover
			// probe first): method not found, as a real server
			// answers. A 202 left it to the proxy's 20 s timeout.
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"method not found"}}`))
			return
		}
		w.WriteHeader(http.StatusAccepted) // a notification
	}
}

// TestMismatchNotResent: a tools/call answered with -32020 is sent again
// only when the answer shows the call did not run and listing the tools
// changed its headers. Here the tool has no header annotation, so the
// listing changes nothing: whatever form the refusal takes, the call
// reaches the server once (it reached it twice before, when the server
// had run it before refusing it).
func TestMismatchNotResent(t *testing.T) {
	jsonErr := func(id json.RawMessage) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32020,"message":"header mismatch"}}`)
	}
	forms := map[string]func(w http.ResponseWriter, id json.RawMessage){
		"json-400": func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(jsonErr(id))
		},
		"stream-400": func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(append(append([]byte("event: message\ndata: "), jsonErr(id)...), "\n\n"...))
		},
		"other-id": func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(jsonErr(json.RawMessage(`"not-this-call"`)))
		},
	}
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			srv := &refusingServer{mismatch: form}
			hs := httptest.NewServer(srv)
			defer hs.Close()
			f := connectWith(t, []string{"--timeout", "20s", "--url", hs.URL}, nil)
			defer f.close(t)
			r, err := f.call(t, "run", map[string]any{})
			if err == nil && (r == nil || !r.IsError) {
				t.Errorf("the refused call came back as a result: %s", text(r))
			}
			f.close(t)
			if n := srv.runs.Load(); n != 1 {
				t.Errorf("the call reached the server %d times, want once", n)
			}
		})
	}
}

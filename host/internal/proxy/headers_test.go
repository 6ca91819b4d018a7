package proxy

import (
	"net/http"
	"strings"
	"testing"
)

func TestHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"wfs_abc":             "wfs_abc",
		"":                    "",
		" lead":               "=?base64?IGxlYWQ=?=",
		"tail\t":              "=?base64?dGFpbAk=?=",
		"ünï":                 "=?base64?w7xuw68=?=",
		"a\r\nInjected: 1":    "=?base64?YQ0KSW5qZWN0ZWQ6IDE=?=",
		"=?base64?abc?=":      "=?base64?PT9iYXNlNjQ/YWJjPz0=?=",
		"=?base64?abc":        "=?base64?abc",
		"inner spaces are ok": "inner spaces are ok",
	} {
		if got := headerValue(in); got != want {
			t.Errorf("headerValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMirror: which headers a message gets, from the tools/list the
// proxy passed on and the body it sends.
func TestMirror(t *testing.T) {
	var th toolHeaders
	th.learn([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[
		{"name":"step","inputSchema":{"type":"object","properties":{
			"session_token":{"type":"string","x-mcp-header":"Session-Token"},
			"n":{"type":"integer","x-mcp-header":"Step"},
			"dry":{"type":"boolean","x-mcp-header":"Dry"},
			"ratio":{"type":"number"},
			"target":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}},
			"bad":{"type":"string","x-mcp-header":"Bad Name"},
			"extra":true,
			"odd":{"type":"string","x-mcp-header":5}}}},
		{"name":"plain","inputSchema":{"type":"object"}}]}}`))
	modern := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	for _, tt := range []struct {
		name, version, body string
		want                map[string]string // "" value: must be absent
	}{
		{"2025 revision: nothing mirrored", "2025-11-25",
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"step","arguments":{"session_token":"wfs_1"}}}`,
			map[string]string{"Mcp-Method": "", "Mcp-Param-Session-Token": ""}},
		{"2026-07-28 from the request's _meta", "",
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + modern + `,"name":"step","arguments":{"session_token":"wfs_1","n":3,"dry":false,"ratio":0.5,"target":{"region":"eu-1"},"bad":"x"}}}`,
			map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "step",
				"Mcp-Param-Session-Token": "wfs_1", "Mcp-Param-Step": "3", "Mcp-Param-Dry": "false", "Mcp-Param-Region": "eu-1", "Mcp-Param-Bad Name": ""}},
		{"absent, null and fractional arguments have no header", "2026-07-28",
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"step","arguments":{"session_token":null,"n":2.5}}}`,
			map[string]string{"Mcp-Method": "tools/call", "Mcp-Param-Session-Token": "", "Mcp-Param-Step": "", "Mcp-Param-Dry": ""}},
		{"a notification gets its method", "2026-07-28",
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
			map[string]string{"Mcp-Method": "notifications/cancelled", "Mcp-Name": ""}},
		{"resources/read names its uri", "2026-07-28",
			`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"mem://readme"}}`,
			map[string]string{"Mcp-Method": "resources/read", "Mcp-Name": "mem://readme"}},
		{"a response is not mirrored", "2026-07-28",
			`{"jsonrpc":"2.0","id":3,"result":{}}`,
			map[string]string{"Mcp-Method": ""}},
		{"exact key names: a NAME beside the name is not the name", "2026-07-28",
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"NAME":"x","name":"step","arguments":{"session_token":"wfs_2"}}}`,
			map[string]string{"Mcp-Name": "step", "Mcp-Param-Session-Token": "wfs_2"}},
		{"an odd field elsewhere costs nothing", "2026-07-28",
			`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"uri":5,"name":"step","arguments":{"session_token":"wfs_3"}}}`,
			map[string]string{"Mcp-Method": "tools/call", "Mcp-Param-Session-Token": "wfs_3"}},
		{"a value past 8 KiB is left out", "2026-07-28",
			`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"step","arguments":{"session_token":"` + strings.Repeat("t", 9000) + `","n":1}}}`,
			map[string]string{"Mcp-Param-Session-Token": "", "Mcp-Param-Step": "1"}},
		{"initialize (a fallback) carries no revision header", "2026-07-28",
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
			map[string]string{"MCP-Protocol-Version": "", "Mcp-Method": ""}},
		{"an unlisted tool: name only", "2026-07-28",
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"other","arguments":{"session_token":"wfs_1"}}}`,
			map[string]string{"Mcp-Name": "other", "Mcp-Param-Session-Token": ""}},
	} {
		h := http.Header{"Mcp-Protocol-Version": {tt.version}}
		th.mirror(h, tt.version, []byte(tt.body))
		for k, want := range tt.want {
			if got := h.Get(k); got != want {
				t.Errorf("%s: %s = %q, want %q", tt.name, k, got, want)
			}
		}
	}
}

// FuzzMirror: whatever the tool list and the message, mirroring never
// panics and never writes a header value with a line break or a
// non-ASCII byte (a header injection).
func FuzzMirror(f *testing.F) {
	f.Add(`{"result":{"tools":[{"name":"t","inputSchema":{"properties":{"a":{"x-mcp-header":"A"}}}}]}}`,
		`{"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"t","arguments":{"a":"x\r\ny"}}}`)
	f.Add(`{"result":{"tools":null}}`, `{"method":"resources/read","params":{"uri":"\u00ff"}}`)
	f.Fuzz(func(t *testing.T, list, msg string) {
		var th toolHeaders
		th.learn([]byte(list))
		h := http.Header{}
		th.mirror(h, "2026-07-28", []byte(msg))
		for k, vs := range h {
			for _, v := range vs {
				if strings.ContainsAny(v, "\r\n") || strings.IndexFunc(v, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
					t.Fatalf("header %s = %q", k, v)
				}
			}
		}
	})
}

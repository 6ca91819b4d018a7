package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzEnvelope holds parseEnvelope to encoding/json on every valid JSON
// object whose member names are JSON-RPC's own spelling (encoding/json
// also matches "ID" or "Method", which JSON-RPC does not have).
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":"}"}]}}}`,
		`{"jsonrpc":"2.0","id":"a\"b","result":{"content":[{"type":"text","text":"{\"id\":9}"}]}}`,
		`{"id":null,"method":null}`, `{"method":"\u0074ools/call","id":1e3}`, ` { "id" : [1] , "method" : "x" } `,
		`{"id":"a\\\\","method":"m\\\"x"}`, `{"id":1,"result":{"text":"\\\\\\\"q\\\\"}}`, `{"id":"\`,
		`{"id":1,"i\u0064":7,"m\u0065thod":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		parseEnvelope(b) // any bytes: an answer or not, never a panic
		if !json.Valid(b) || !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
			return
		}
		var keys map[string]json.RawMessage
		if json.Unmarshal(b, &keys) != nil {
			return
		}
		for k := range keys {
			if (strings.EqualFold(k, "id") && k != "id") || (strings.EqualFold(k, "method") && k != "method") {
				return
			}
		}
		var want struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		wantErr := json.Unmarshal(b, &want)
		got, ok := parseEnvelope(b)
		if wantErr != nil {
			if ok && got.Method != "" {
				t.Fatalf("%s: encoding/json fails (%v), parseEnvelope read method %q", b, wantErr, got.Method)
			}
			return
		}
		if !ok {
			t.Fatalf("%s: not read (want id %s method %q)", b, want.ID, want.Method)
		}
		if got.Method != want.Method || !bytes.Equal(bytes.TrimSpace(got.ID), bytes.TrimSpace(want.ID)) {
			t.Fatalf("%s: got id %s method %q, want id %s method %q", b, got.ID, got.Method, want.ID, want.Method)
		}
	})
}

// TestEnvelopeEscapedKeys: a member name with an escape is read as the
// plugin reads it (unescaped), the last of a repeated name winning.
func TestEnvelopeEscapedKeys(t *testing.T) {
	for _, tt := range []struct{ in, id, method string }{
		{`{"i\u0064":7,"method":"x"}`, `7`, "x"},
		{`{"id":1,"i\u0064":7}`, `7`, ""},
		{`{"i\u0064":7,"id":1,"m\u0065thod":"tools/call"}`, `1`, "tools/call"},
		{`{"\u0069\u0064":"a","i\"d":"b"}`, `"a"`, ""},
	} {
		env, ok := parseEnvelope([]byte(tt.in))
		if !ok || string(env.ID) != tt.id || env.Method != tt.method {
			t.Errorf("parseEnvelope(%s) = %s %q %v, want %s %q", tt.in, env.ID, env.Method, ok, tt.id, tt.method)
		}
	}
}

package jsonpath

import (
	"encoding/json"
	"testing"
)

func TestFirstString(t *testing.T) {
	doc := `{"_meta":{"session_token":"m1"},"structuredContent":{"session_token":""},
	"content":[{"type":"image"},{"type":"text","text":"not json"},{"type":"text","text":" {\"session_token\":\"t3\"}"}]}`
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
		ok               bool
	}{
		{"meta", "_meta.session_token", "m1", true},
		{"empty string is not a token", "structuredContent.session_token", "", false},
		{"json text block", "content.*.text.@json.session_token", "t3", true},
		{"missing key", "_meta.other", "", false},
		{"empty path", "", "", false},
		{"not a string", "_meta", "", false},
		{"wildcard over object", "*.session_token", "m1", true},
		{"@json on non-string", "_meta.@json.x", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := FirstString(v, tt.path)
			if got != tt.want || ok != tt.ok {
				t.Errorf("FirstString(%q) = %q, %v; want %q, %v", tt.path, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func FuzzFirstString(f *testing.F) {
	f.Add(`{"_meta":{"session_token":"x"}}`, "_meta.session_token")
	f.Add(`{"content":[{"text":"{\"session_token\":\"y\"}"}]}`, "content.*.text.@json.session_token")
	f.Fuzz(func(t *testing.T, doc, path string) {
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			return
		}
		if s, ok := FirstString(v, path); ok && s == "" {
			t.Fatalf("ok with empty string for %q", path)
		}
	})
}

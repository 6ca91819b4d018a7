package shape

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

func TestThreshold(t *testing.T) {
	tests := []struct {
		name   string
		cfg    abi.Config
		server string
		want   int
	}{
		{"default", abi.Config{}, "x", abi.DefaultShapeThreshold},
		{"global", abi.Config{Shaping: abi.ShapingConfig{ThresholdBytes: 100}}, "x", 100},
		{"off", abi.Config{Shaping: abi.ShapingConfig{ThresholdBytes: -1}}, "x", 0},
		{"server overrides", abi.Config{Shaping: abi.ShapingConfig{ThresholdBytes: -1},
			Servers: map[string]abi.ServerConfig{"x": {ShapeBytes: 50}}}, "x", 50},
		{"server never", abi.Config{Servers: map[string]abi.ServerConfig{"x": {ShapeBytes: -1}}}, "x", 0},
	}
	for _, tt := range tests {
		if got := Threshold(tt.cfg, tt.server); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestHead(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"line one\nline two\nline three", 20, "line one\nline two"},
		{"abcdefghij", 4, "abcd"},
		{"ééééé", 5, "éé"}, // never splits a rune
		{"a\nbcdefghijklmnop", 10, "a\nbcdefghi"},
	} {
		if got := Head(tt.in, tt.max); got != tt.want {
			t.Errorf("Head(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestCallHash(t *testing.T) {
	a := CallHash("jira", "get", json.RawMessage(`{"id":"X","session_token":"t1"}`), "session_token")
	b := CallHash("jira", "get", json.RawMessage(`{ "session_token":"t2", "id":"X" }`), "session_token")
	c := CallHash("jira", "get", json.RawMessage(`{"id":"Y"}`), "session_token")
	d := CallHash("sentry", "get", json.RawMessage(`{"id":"X"}`), "session_token")
	if a != b || a == c || a == d || !strings.HasPrefix(a, "e") || len(a) != 17 {
		t.Errorf("hashes: %s %s %s %s", a, b, c, d)
	}
	if CallHash("s", "t", json.RawMessage(`{bad`)) != "" {
		t.Error("bad JSON hashed")
	}
}

func FuzzHead(f *testing.F) {
	f.Add("line one\nline two", 5)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 0 || max > 1<<20 {
			return
		}
		h := Head(s, max)
		if len(h) > max && len(s) > max || !strings.HasPrefix(s, h) {
			t.Fatalf("Head(%q, %d) = %q", s, max, h)
		}
	})
}

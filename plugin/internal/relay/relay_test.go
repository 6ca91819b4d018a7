package relay

import (
	"encoding/json"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

func wf(t *testing.T) Server {
	t.Helper()
	s, ok := Lookup(abi.Config{Servers: map[string]abi.ServerConfig{"wf": {Relay: true}}}, "wf")
	if !ok {
		t.Fatal("relay not enabled")
	}
	return s
}

func TestLookup(t *testing.T) {
	cfg := abi.Config{Servers: map[string]abi.ServerConfig{"on": {Relay: true}, "off": {}}}
	for name, want := range map[string]bool{"on": true, "off": false, "absent": false, "": false} {
		if _, ok := Lookup(cfg, name); ok != want {
			t.Errorf("Lookup(%q) = %v, want %v", name, ok, want)
		}
	}
}

func TestCapture(t *testing.T) {
	tests := []struct {
		name, result, want string
		ok                 bool
	}{
		{"meta first", `{"_meta":{"session_token":"M"},"structuredContent":{"session_token":"S"}}`, "M", true},
		{"structured", `{"structuredContent":{"session_token":"S"},"content":[]}`, "S", true},
		{"claude blocks with json text", `[{"type":"text","text":"{\"session_token\":\"B\",\"step\":2}"}]`, "B", true},
		{"claude string of structuredContent", `"{\"session_token\":\"C\"}"`, "C", true},
		{"plain text", `[{"type":"text","text":"no token here"}]`, "", false},
		{"not json", `{{`, "", false},
		{"number", `42`, "", false},
	}
	s := wf(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := s.Capture(json.RawMessage(tt.result))
			if got != tt.want || ok != tt.ok {
				t.Errorf("Capture = %q,%v want %q,%v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestInject(t *testing.T) {
	tests := []struct {
		name, tool, input, token, want string
		skip                           Skip
	}{
		{"appends last", "step", `{"b":1, "a":"x"}`, "T", `{"b":1,"a":"x","session_token":"T"}`, SkipNone},
		{"empty input", "step", `{}`, "T", `{"session_token":"T"}`, SkipNone},
		{"null input", "step", `null`, "T", `{"session_token":"T"}`, SkipNone},
		{"starter", "start_session", `{}`, "T", "", SkipStartTool},
		{"already passed", "step", `{"session_token":"mine"}`, "T", "", SkipPresent},
		{"checkpoint", "step", `{"checkpoint_handle":"h"}`, "T", "", SkipArg},
		{"no token", "step", `{}`, "", "", SkipNoToken},
		{"array input", "step", `[1]`, "T", "", SkipBadInput},
		{"escapes token", "step", `{}`, "a\"b", `{"session_token":"a\"b"}`, SkipNone},
	}
	s := wf(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, skip := s.Inject(tt.tool, json.RawMessage(tt.input), tt.token)
			if string(got) != tt.want || skip != tt.skip {
				t.Errorf("Inject = %s,%q want %s,%q", got, skip, tt.want, tt.skip)
			}
			if skip == SkipNone && !json.Valid(got) {
				t.Errorf("invalid JSON %s", got)
			}
		})
	}
}

package relay

import (
	"encoding/json"
	"strings"
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

// TestRejectsToken: the default token errors recognise an invalid, expired
// or unknown session and the token argument's name, not other failures;
// configured patterns replace them; only the first 8 KiB is read.
func TestRejectsToken(t *testing.T) {
	def, _ := Lookup(abi.Config{Servers: map[string]abi.ServerConfig{"s": {Relay: true}}}, "s")
	arg, _ := Lookup(abi.Config{Servers: map[string]abi.ServerConfig{"s": {Relay: true, TokenArg: "wf.token"}}}, "s")
	own, _ := Lookup(abi.Config{Servers: map[string]abi.ServerConfig{"s": {Relay: true, TokenErrors: []string{"no such run", "(broken"}}}}, "s")
	for _, tc := range []struct {
		s    Server
		text string
		want bool
	}{
		{def, "invalid session token (got 480 characters); call start_session again", true},
		{def, "Session expired", true},
		{def, "session has ended", true},
		{def, "Unknown session id 7f3a", true},
		{def, "expired token", true},
		{def, "MCP error -32602: session not found", true},
		{def, "missing required argument session_token", true},
		{def, "ticket TCK-404 not found", false},
		{def, "invalid date in report", false},
		{def, strings.Repeat("x", 9<<10) + " invalid session", false},
		{arg, "wf.token does not match", true},
		{arg, "wfxtoken does not match", false},
		{own, "No Such Run: 7f3a", true},
		{own, "invalid session token", false},
	} {
		if got := tc.s.RejectsToken(tc.text); got != tc.want {
			t.Errorf("%v RejectsToken(%.60q) = %v, want %v", tc.s.TokenErrors, tc.text, got, tc.want)
		}
	}
}

// TestCarries: a call carries the token only as its token argument's
// string value.
func TestCarries(t *testing.T) {
	s, _ := Lookup(abi.Config{Servers: map[string]abi.ServerConfig{"s": {Relay: true}}}, "s")
	for in, want := range map[string]bool{
		`{"n":1,"session_token":"tok-1"}`: true,
		`{"n":1,"session_token":"tok-2"}`: false,
		`{"n":1,"note":"tok-1"}`:          false,
		`{"session_token":["tok-1"]}`:     false,
		`not json`:                        false,
	} {
		if got := s.Carries(json.RawMessage(in), "tok-1"); got != want {
			t.Errorf("Carries(%s) = %v, want %v", in, got, want)
		}
	}
	if s.Carries(json.RawMessage(`{"session_token":""}`), "") {
		t.Errorf("an empty token is carried by no call")
	}
}

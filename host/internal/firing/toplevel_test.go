package firing

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestTopString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"session_id":"abc"}`, "abc"},
		{` { "session_id" :  "a\"b\u00e9" , "x":1}`, `a"bé`},
		{`{"tool_input":{"note":"session_id"},"session_id":"top"}`, "top"},
		{`{"tool_input":{"session_id":"wfs_token"},"x":[1,{"session_id":"n"}]}`, ""},
		{`{"tool_input":{"session_id":"wfs_token"},"session_id":"top"}`, "top"},
		{`{"a":"}\"{","b":[["]"]],"c":true,"session_id":"s"}`, "s"},
		{`{"session\u005fid":"esc"}`, "esc"},
		{`{"session_id":12}`, ""},
		{`{"session_id":"cut`, ""},
		{`{"tool_input":{"session_id":"cut`, ""},
		{`{"other":"v"}`, ""},
		{`["session_id","x"]`, ""},
		{`"session_id":"x"`, ""},
	} {
		if got := TopString([]byte(c.in), "session_id"); got != c.want {
			t.Errorf("%s: %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzTopString: never a value longer than the input; on a valid object
// naming the key once, the value encoding/json finds at the top level.
func FuzzTopString(f *testing.F) {
	for _, s := range []string{`{"session_id":"abc"}`, `{"x":{"session_id":"in"},"session_id":"top"}`, `{"session_id":"a\\"}`, `{"a":[1,"]"],"session_id":"\u12`, `{"session_id" : "x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := TopString(b, "session_id")
		// An invalid byte decodes to U+FFFD (three bytes), as in
		// encoding/json: the value is bounded by three times its input.
		if len(s) > 3*len(b) {
			t.Fatalf("value %q more than three times as long as its input", s)
		}
		var m map[string]any
		if json.Unmarshal(b, &m) != nil || bytes.Count(b, []byte(`"session_id"`)) != 1 || bytes.Contains(b, []byte(`\u`)) {
			return
		}
		want, _ := m["session_id"].(string)
		if s != want {
			t.Fatalf("%q: got %q, encoding/json has %q", b, s, want)
		}
	})
}

package mcpmsg

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unsafe"
)

func TestParseCall(t *testing.T) {
	c, ok, err := ParseCall(json.RawMessage(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"step","arguments":{"n":1},"_meta":{"progressToken":3}},"x-extra":true}`))
	if err != nil || !ok || c.Tool != "step" || string(c.Args) != `{"n":1}` {
		t.Fatalf("ParseCall = %+v %v %v", c, ok, err)
	}
	if _, ok, err := ParseCall(json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); ok || err != nil {
		t.Errorf("ping taken for a call")
	}
	if _, ok, _ := ParseCall(json.RawMessage(`{"jsonrpc":"2.0","method":"tools/call","params":{}}`)); ok {
		t.Errorf("a notification without id taken for a call")
	}
	if _, _, err := ParseCall(json.RawMessage(`[1]`)); !errors.Is(err, ErrMessage) {
		t.Errorf("array: err %v", err)
	}
	c, ok, _ = ParseCall(json.RawMessage(`{"id":"a","method":"tools/call","params":{"name":"s"}}`))
	if !ok || string(c.Args) != "{}" {
		t.Errorf("missing arguments: %+v", c)
	}
}

func TestStripToken(t *testing.T) {
	tok := "wfs_" + strings.Repeat("ab12", 30)
	res, err := ParseResult(json.RawMessage(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"session_token\":\"` + tok + `\",\"step\":1}"}],"_meta":{"session_token":"` + tok + `","trace":"t-1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	o, changed, err := StripToken(res.Result, tok, "session_token", "[held by ctxhook]")
	out := o.Raw()
	if err != nil || !changed || strings.Contains(string(out), tok) {
		t.Fatalf("token survived: %s", out)
	}
	if !strings.Contains(string(out), `"trace":"t-1"`) || !strings.Contains(string(out), `\"step\":1`) {
		t.Errorf("other fields lost: %s", out)
	}
	if !json.Valid(out) {
		t.Errorf("invalid JSON: %s", out)
	}
	if !strings.Contains(string(res.Result.Raw()), tok) {
		t.Errorf("StripToken modified its input")
	}
	if _, changed, _ := StripToken(res.Result, "absent-token", "other_key", "x"); changed {
		t.Errorf("changed without the token")
	}
}

func TestStripTokenRewritesOnlyWhatHoldsIt(t *testing.T) {
	tok := "wfs_" + strings.Repeat("cd34", 30)
	res, err := ParseResult(json.RawMessage(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` +
		strings.Repeat("plain words ", 1000) + `"}],"_meta":{"session_token":"` + tok + `"},"` + tok + `":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, changed, err := StripToken(res.Result, tok, "session_token", "[held]")
	if err != nil || !changed {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	if raw := out.Raw(); strings.Contains(string(raw), tok) || !json.Valid(raw) || out.Len() != len(raw) {
		t.Fatalf("out %s (Len %d)", raw, out.Len())
	}
	if _, ok := out["_meta"]; ok {
		t.Errorf("_meta kept with nothing left in it")
	}
	if unsafe.SliceData(out["content"]) != unsafe.SliceData(res.Result["content"]) {
		t.Errorf("the content, which holds no token, was copied")
	}
	if _, ok := out["[held]"]; !ok {
		t.Errorf("a key naming the token was not renamed: %s", out.Raw())
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[],"_meta":{"session_token":"t"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if c, ok, err := ParseCall(b); ok && (err != nil || !json.Valid(c.Args)) {
			t.Fatalf("call %+v %v", c, err)
		}
		if r, err := ParseResult(b); err == nil && r.Result != nil {
			o, _, err := StripToken(r.Result, "tok_fuzz_1234", "session_token", "[held]")
			if err != nil {
				return // the caller withholds the result
			}
			out := o.Raw() // unchanged: the result goes as it came
			if o.Len() != len(out) {
				t.Fatalf("Len %d, Raw %d bytes", o.Len(), len(out))
			}
			if !json.Valid(out) || strings.Contains(string(out), "tok_fuzz_1234") {
				t.Fatalf("strip produced %s", out)
			}
		}
	})
}

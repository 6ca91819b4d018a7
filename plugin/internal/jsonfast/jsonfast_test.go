package jsonfast

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

var samples = []string{
	`{}`, `[]`, `""`, `0`, `-0.5e+3`, `1e400`, `01`, `1.`, `-`, `true`, `nul`, ` null `,
	`{"a":1,"a":2}`, `{"a":[1,"x",{"b":null}],"c":"\u00e9\ud83d\ude00\ud800x\\\"\/\b\f\n\r\t"}`,
	"\"\xff\xfe ok \xe2\x82\"", `"\u12"`, `"\q"`, "\"a\tb\"", `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`,
	`{"k\u0041":1}`, `{"é":1}`, `"x" "y"`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	for _, s := range samples {
		checkDecode(t, []byte(s))
	}
	b, err := os.ReadFile("../../../testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	checkDecode(t, b)
}

func checkDecode(t *testing.T, b []byte) {
	t.Helper()
	got, gerr := Decode(b)
	var want any
	werr := json.Unmarshal(b, &want)
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() || !reflect.DeepEqual(got, want) {
		t.Fatalf("%.80q: got %#v (%v), encoding/json %#v (%v)", b, got, gerr, want, werr)
	}
}

// checkObject: whenever Object answers, encoding/json agrees that b is
// one object, with the same keys in the same order and the same values.
func checkObject(t *testing.T, b []byte) {
	t.Helper()
	members, ok := Object(b)
	if !ok {
		return
	}
	var want map[string]json.RawMessage
	if err := json.Unmarshal(b, &want); err != nil || want == nil {
		t.Fatalf("%.80q: Object answered, encoding/json says %v", b, err)
	}
	last := map[string]string{}
	for _, m := range members {
		last[m.Key] = string(m.Value)
	}
	if len(last) != len(want) {
		t.Fatalf("%.80q: keys %v, encoding/json %v", b, last, want)
	}
	for k, v := range want {
		if last[k] != string(v) {
			t.Fatalf("%.80q: %q = %s, encoding/json %s", b, k, last[k], v)
		}
	}
}

func checkString(t *testing.T, b []byte) {
	t.Helper()
	got, ok := String(b)
	var want string
	err := json.Unmarshal(b, &want)
	token := len(b) > 1 && b[0] == '"' && b[len(b)-1] == '"'
	if ok && (err != nil || got != want) || !ok && token && err == nil {
		t.Fatalf("%.80q: got %q %v, encoding/json %q %v", b, got, ok, want, err)
	}
}

func TestObjectAndString(t *testing.T) {
	for _, s := range samples {
		checkObject(t, []byte(s))
		checkString(t, []byte(s))
	}
	if m, ok := Object([]byte(` {"a": [1, {"b": "c"}], "d" : "e\n"} `)); !ok || len(m) != 2 || string(m[0].Value) != `[1, {"b": "c"}]` || m[1].Key != "d" {
		t.Fatalf("Object: %q %v", m, ok)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range samples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecode(t, b)
		checkObject(t, b)
		checkString(t, b)
		checkExpand(t, b)
	})
}

// FuzzAppendString: what AppendString writes is one valid JSON string
// that decodes to s (with invalid UTF-8 as U+FFFD, as encoding/json
// decodes it).
func FuzzAppendString(f *testing.F) {
	f.Add("plain")
	f.Add("line\nnext\t\"quoted\" \\ \x01 é \xff\u2028")
	f.Fuzz(func(t *testing.T, s string) {
		tok := AppendString(nil, s)
		var got string
		if err := json.Unmarshal(tok, &got); err != nil {
			t.Fatalf("%q -> %s: %v", s, tok, err)
		}
		want := strings.ToValidUTF8(s, "\ufffd")
		// ToValidUTF8 merges a run of invalid bytes into one U+FFFD;
		// encoding/json (and AppendString) give one per byte.
		var ref string
		b, _ := json.Marshal(s)
		json.Unmarshal(b, &ref)
		if got != ref {
			t.Fatalf("%q -> %s decodes to %q, encoding/json round trip gives %q (%q)", s, tok, got, ref, want)
		}
	})
}

// checkExpand: an Expander, after it has checked b whole (learning
// where its strings end) or been told b is valid, expands b level by
// level to what Decode gives.
func checkExpand(t *testing.T, b []byte) {
	t.Helper()
	defer func(n int) { longString = n }(longString)
	longString = 2 // every string's end is remembered and looked up
	want, werr := Decode(b)
	if werr != nil && strings.Contains(werr.Error(), "exceeded max depth") {
		return // each level is checked on its own (Expander's doc)
	}
	for _, route := range []string{"checked", "told"} {
		var e Expander
		switch route {
		case "checked":
			e.Object(b)
			e.Object(b) // twice: the second run meets the ends it learnt
		case "told":
			if werr != nil {
				continue
			}
			e.Valid(b)
		}
		got, err := deepExpand(&e, Raw(b))
		if (err != nil) != (werr != nil) {
			t.Fatalf("%.80q (%s): Expander error %v, Decode %v", b, route, err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%.80q (%s): Expander %#v, Decode %#v", b, route, got, want)
		}
	}
}

func deepExpand(e *Expander, v any) (any, error) {
	if r, ok := v.(Raw); ok {
		var err error
		if v, err = e.Expand(r); err != nil {
			return nil, err
		}
	}
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			x, err := deepExpand(e, c)
			if err != nil {
				return nil, err
			}
			t[k] = x
		}
	case []any:
		for i, c := range t {
			x, err := deepExpand(e, c)
			if err != nil {
				return nil, err
			}
			t[i] = x
		}
	}
	return v, nil
}

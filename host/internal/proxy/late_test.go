package proxy

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/decider"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/internal/testcache"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

func TestSkeleton(t *testing.T) {
	long := strings.Repeat("a", 40)
	for _, tt := range []struct {
		name, in, want string
		ok             bool
	}{
		{"short strings untouched", `{"a":"bc","d":[1,"e"]}`, `{"a":"bc","d":[1,"e"]}`, true},
		{"long string cut", `{"t":"` + long + `"}`, `{"t":"` + long[:16] + `"}`, true},
		{"escape not split", `{"t":"` + long[:15] + `\"` + long + `"}`, `{"t":"` + long[:15] + `"}`, true},
		{"unicode escape not split", `{"t":"` + long[:12] + `\u00e9` + long + `"}`, `{"t":"` + long[:12] + `"}`, true},
		{"escape kept whole", `{"t":"` + long[:10] + `\u00e9` + long + `"}`, `{"t":"` + long[:10] + `\u00e9"}`, true},
		{"UTF-8 not split", `{"t":"` + long[:15] + `é` + long + `"}`, `{"t":"` + long[:15] + `"}`, true},
		{"quote in key or escape", `{"k\"y":"` + long + `"}`, `{"k\"y":"` + long[:16] + `"}`, true},
		{"numbers past max", `[` + strings.Repeat("1,", 30) + `1]`, ``, false},
		{"whitespace past max", `{"a":` + strings.Repeat(" ", 60) + `1}`, ``, false},
		{"exactly max", `[` + strings.Repeat("1,", 23) + `12]`, `[` + strings.Repeat("1,", 23) + `12]`, true},
		{"too large", `["` + long[:10] + `","` + long[:10] + `","` + long[:10] + `","` + long[:10] + `"]`, ``, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, ok := skeleton([]byte(tt.in), 16, 50)
			if ok != tt.ok || string(out) != tt.want {
				t.Fatalf("skeleton(%s) = %s, %v; want %s, %v", tt.in, out, ok, tt.want, tt.ok)
			}
		})
	}
}

// FuzzSkeleton: a skeleton of valid JSON is valid JSON, no longer than
// its message, within its bound, and every string in it is short.
func FuzzSkeleton(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat(`ab\n\u00e9é\"`, 20) + `"}]}}`))
	f.Add([]byte(`["\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\"]`))
	f.Fuzz(func(t *testing.T, m []byte) {
		if !json.Valid(m) {
			return
		}
		out, ok := skeleton(m, 16, 1<<10)
		if !ok {
			return
		}
		if !json.Valid(out) || len(out) > len(m) || len(out) > 1<<10 {
			t.Fatalf("skeleton(%q) = %q", m, out)
		}
		for _, s := range regexp.MustCompile(`"(\\.|[^"\\])*"`).FindAll(out, -1) {
			if len(s) > 16+2 {
				t.Fatalf("skeleton(%q) keeps %q", m, s)
			}
		}
	})
}

// TestEventKeyMatchesPlugin: the pointer the proxy writes when the
// plugin is late names the event the plugin records, decided by the real
// plugin in-process under the same request id.
func TestEventKeyMatchesPlugin(t *testing.T) {
	home := t.TempDir()
	testcache.LinkWasm(home)
	getenv := func(k string) string {
		switch k {
		case "CTXHOOK_HOME":
			return home
		case "CTXHOOK_NO_DAEMON":
			return "1"
		}
		return ""
	}
	p, err := paths.Resolve(getenv)
	if err != nil {
		t.Fatal(err)
	}
	d := decider.New(getenv, p, func(kind, format string, a ...any) { t.Logf(format, a...) })
	defer d.Close()
	request := []byte(`{"jsonrpc":"2.0","id": 7 ,"method":"tools/call","params":{"name":"search","arguments":{ "q" : "p99", "n":[1, 2]}}}`)
	msg := []byte(`{"jsonrpc":"2.0","id": 7 ,"result":{"content":[{"type":"text","text":"` + strings.Repeat("line of a large result\\n", 2000) + `"}]}}`)
	for _, tt := range []struct{ session, server, reqID string }{
		{"s-1", "wf", "rid-1"},
		{"proxy-abc", "jira", "x-42"},
	} {
		out, err := d.DecideWithin(context.Background(), tt.reqID, abi.HarnessMCPProxy, abi.ProxyResponse, proxyPayload(tt.session, tt.server, "", msg, request), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`stored as event (e[0-9a-f]{16})`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("the plugin did not shape the result: %.300s", out)
		}
		if got := eventKey(tt.session, tt.server, "7", "request "+tt.reqID, callArgs(request)); got != m[1] {
			t.Errorf("%+v: the proxy's key %s, the plugin's %s", tt, got, m[1])
		}
	}
}

func TestHeadAnswer(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":"a","result":{"_meta":{"session_token":"[session token held by ctxhook]"},"isError":true,"extra":"x",` +
		`"content":[{"type":"image","data":"AAAA"},{"type":"text","text":"` + strings.Repeat("0123456789abcde\\n", 100) + `"}]}}`)
	if out := headAnswer(msg, json.RawMessage(`"a"`), " [note %d]", 0); !strings.Contains(string(out), `"text":" [note 0]"`) {
		t.Errorf("headAnswer without a head: %s", out)
	}
	out := headAnswer(msg, json.RawMessage(`"a"`), " [note %d]", ownHeadBytes)
	var got struct {
		ID     string
		Result struct {
			Meta    map[string]string `json:"_meta"`
			IsError bool
			Extra   string
			Content []struct{ Type, Text string }
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	c := got.Result.Content
	if got.ID != "a" || !got.Result.IsError || got.Result.Extra != "" || got.Result.Meta["session_token"] == "" || len(c) != 1 {
		t.Fatalf("headAnswer: %s", out)
	}
	if want := strings.Repeat("0123456789abcde\n", 63) + "0123456789abcde [note 1023]"; c[0].Text != want {
		t.Errorf("text %q, want %q", c[0].Text, want)
	}
}

// TestHeadSize: the proxy's own shaping shows the user's head_bytes
// (bounded by the skeleton's cut), the default without one, and no head
// with [redact] model on (its strip decision redacts nothing) or when the
// config has an error.
func TestHeadSize(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, text string
		want       int
	}{
		{"no config", "", ownHeadBytes},
		{"model off", "[redact]\nmodel = false\n", ownHeadBytes},
		{"head bytes", "[shaping]\nhead_bytes = 300\n", 300},
		{"huge head", "[shaping]\nhead_bytes = 100000000\n", skeletonCut},
		{"model on", "[redact]\nmodel = true\n", 0},
		{"an error", "[redact]\nmodel = \"yes\"\n", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".toml")
			if tt.text != "" {
				os.WriteFile(path, []byte(tt.text), 0o600)
			}
			if got := headSize(path); got != tt.want {
				t.Errorf("headSize(%q) = %d, want %d", tt.text, got, tt.want)
			}
		})
	}
}

// TestSkeletonBoundedBig: a 64 MiB result of numbers, or of a short text
// padded with whitespace, makes no skeleton (it would be the whole
// result, stripped in-process with no deadline).
func TestSkeletonBoundedBig(t *testing.T) {
	const size = 64 << 20
	nums := make([]byte, 0, size+64)
	nums = append(nums, `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":[`...)
	for len(nums) < size {
		nums = append(nums, "123456789,"...)
	}
	nums = append(nums, "0]}}"...)
	pad := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]` + strings.Repeat(" ", size) + `}}`)
	for name, m := range map[string][]byte{"numbers": nums, "whitespace": pad} {
		if out, ok := skeleton(m, skeletonCut, skeletonMax); ok || len(out) > skeletonMax {
			t.Errorf("%s: a skeleton of %d bytes (ok %v) from %d", name, len(out), ok, len(m))
		}
	}
}

// TestHeadAnswerError: a large JSON-RPC error shaped by the proxy stays
// an error (its code, the head of its message, no data), never a success
// result; a message with neither becomes a generic error.
func TestHeadAnswerError(t *testing.T) {
	long := strings.Repeat("0123456789abcde\\n", 100)
	for _, tt := range []struct {
		name, msg, wantMsg string
		code               int
		headMax            int
	}{
		{"error with head", `{"jsonrpc":"2.0","id":"a","error":{"code":-32000,"message":"` + long + `","data":"` + long + `"}}`,
			strings.Repeat("0123456789abcde\n", 63) + "0123456789abcde [note 1023]", -32000, ownHeadBytes},
		{"error without head", `{"jsonrpc":"2.0","id":"a","error":{"code":-32000,"message":"` + long + `"}}`, " [note 0]", -32000, 0},
		{"odd code", `{"jsonrpc":"2.0","id":"a","error":{"code":"x","message":"m"}}`, "m [note 1]", CodeUndecided, ownHeadBytes},
		{"null result", `{"jsonrpc":"2.0","id":"a","result":null}`, " [note 0]", CodeUndecided, ownHeadBytes},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := headAnswer([]byte(tt.msg), json.RawMessage(`"a"`), " [note %d]", tt.headMax)
			var got struct {
				ID     string
				Result json.RawMessage
				Error  map[string]any
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if got.ID != "a" || got.Result != nil || got.Error == nil || len(got.Error) != 2 {
				t.Fatalf("headAnswer(%.80s) = %.300s", tt.msg, out)
			}
			if got.Error["code"] != float64(tt.code) || got.Error["message"] != tt.wantMsg {
				t.Errorf("error %v %q, want %d %q", got.Error["code"], got.Error["message"], tt.code, tt.wantMsg)
			}
		})
	}
}

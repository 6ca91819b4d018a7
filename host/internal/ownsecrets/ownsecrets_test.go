package ownsecrets

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/state"
	"github.com/google/go-cmp/cmp"
)

func TestURLPasswords(t *testing.T) {
	for _, tc := range []struct {
		name, url string
		want      []string
	}{
		{"userinfo", "postgres://alice:s3cretPassw0rd@db.example/ctxhook?sslmode=verify-full", []string{"s3cretPassw0rd"}},
		{"escaped", "postgres://alice:p%40ss%2Fw0rd!x@db/ctxhook", []string{"p@ss/w0rd!x", "p%40ss%2Fw0rd!x"}},
		{"query", "postgres://db/ctxhook?user=alice&password=qu3ryPassw0rd", []string{"qu3ryPassw0rd"}},
		{"query escaped", "postgresql:///ctxhook?host=/run/pg&password=a%2Bb%26c%3Dd-long", []string{"a+b&c=d-long", "a%2Bb%26c%3Dd-long"}},
		{"short", "postgres://alice:short@db/ctxhook", nil},
		{"none", "postgres://alice@db/ctxhook", nil},
		{"not a url", "postgres://a:b@[::1", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := URLPasswords(tc.url); !cmp.Equal(got, tc.want) {
				t.Errorf("URLPasswords(%q) = %q, want %q", tc.url, got, tc.want)
			}
		})
	}
}

// FuzzURLPasswords: whatever the URL, every password Go's parser finds in
// it is among the values, and no value is shorter than the plugin
// redacts.
func FuzzURLPasswords(f *testing.F) {
	f.Add("postgres://alice:s3cretPassw0rd@db.example/ctxhook")
	f.Add("postgres://db/x?password=a%2Bb%26c%3Dd-long")
	f.Add("postgres://u:p%zz@h/d")
	f.Fuzz(func(t *testing.T, raw string) {
		got := URLPasswords(raw)
		for _, v := range got {
			if len(v) < minLen {
				t.Fatalf("value %q is shorter than %d", v, minLen)
			}
		}
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		if pw, ok := u.User.Password(); ok && len(pw) >= minLen && !slices.Contains(got, pw) {
			t.Fatalf("password %q of %q missing from %q", pw, raw, got)
		}
	})
}

func TestDocTokens(t *testing.T) {
	for _, tc := range []struct {
		name, doc    string
		cur, retired []string
	}{
		{"both", `{"mcp_calls":3,"tokens":{"b":"tok-b-000000","a":"tok-a-000000"},"retired":["old-000000"],"answered":[{"h":"x","k":"y"}]}`,
			[]string{"tok-a-000000", "tok-b-000000"}, []string{"old-000000"}},
		{"retired first", `{"retired":["old-000000"],"searches":["\"tokens\": {\"a\":\"typed-by-model\"}"],"tokens":{"a":"tok-a-000000"}}`,
			[]string{"tok-a-000000"}, []string{"old-000000"}},
		{"none", `{"mcp_calls":1,"searches":["q"]}`, nil, nil},
		{"cursor tool map", `{"get_issue":"jira"}`, nil, nil},
		{"not an object", `["tok-a-000000"]`, nil, nil},
		{"broken", `{"tokens":{"a":`, nil, nil},
		{"broken retired", `{"tokens":{"a":"tok-a-000000"},"retired":["x`, []string{"tok-a-000000"}, nil},
		{"wrong type", `{"tokens":["a"]}`, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur, retired := docTokens([]byte(tc.doc))
			if !cmp.Equal(cur, tc.cur) || !cmp.Equal(retired, tc.retired) {
				t.Errorf("got %q %q, want %q %q", cur, retired, tc.cur, tc.retired)
			}
		})
	}
}

// FuzzDocTokens: a session document is the plugin's, but a damaged or
// planted one must not stop a hook; whatever it holds, a value found is
// one the document's JSON holds.
func FuzzDocTokens(f *testing.F) {
	f.Add(`{"tokens":{"a":"tok-a-000000"},"retired":["old-000000"]}`)
	f.Add(`{"tokens":{"a":"x\u0041"},"retired":[null]}`)
	f.Add(`{"upstreams":{"retired":"x"},"retired":["old-000000"],"tokens":{"b":"t-1","a":"t-2"}}`)
	f.Fuzz(func(t *testing.T, doc string) {
		cur, retired := docTokens([]byte(doc))
		// A valid document gives exactly its top-level fields' values.
		var top map[string]json.RawMessage
		if json.Unmarshal([]byte(doc), &top) == nil {
			var m map[string]string
			var wantCur, wantRetired []string
			if json.Unmarshal(top["tokens"], &m) == nil {
				for _, k := range slices.Sorted(maps.Keys(m)) {
					wantCur = append(wantCur, m[k])
				}
			}
			if json.Unmarshal(top["retired"], &wantRetired) != nil {
				wantRetired = nil
			}
			if !slices.Equal(cur, wantCur) || !slices.Equal(retired, wantRetired) {
				t.Fatalf("docTokens(%q) = %q, %q; want %q, %q", doc, cur, retired, wantCur, wantRetired)
			}
		}
		for _, v := range slices.Concat(cur, retired) {
			if v != "" && utf8.ValidString(doc) && !strings.Contains(doc, v) && !strings.Contains(doc, `\`) {
				t.Fatalf("%q found in %q", v, doc)
			}
		}
	})
}

// home is a ctxhook home with a state directory.
func home(t *testing.T) (paths.Paths, state.Dir) {
	t.Helper()
	dir := t.TempDir()
	p, err := paths.Resolve(func(k string) string {
		if k == "CTXHOOK_HOME" {
			return dir
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	sd, err := state.Open(p.StateDir())
	if err != nil {
		t.Fatal(err)
	}
	return p, sd
}

// TestGather: the hook secret, the store's password from the config
// file and from the environment, and every session's tokens, current
// ones first. Documents an earlier release wrote seed the record on
// first use; documents planted later change nothing.
func TestGather(t *testing.T) {
	p, sd := home(t)
	secret, err := hooksecret.Ensure(hooksecret.Path(p.Data))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(p.Config), 0o700)
	os.WriteFile(p.Config, []byte("[store]\nurl = \"postgres://alice:fromTheConfig1@localhost/ctxhook\"\n"), 0o600)
	getenv := func(k string) string {
		if k == "CTXHOOK_STORE_URL" {
			return "postgres://bob:fromTheEnviron2@localhost/ctxhook"
		}
		return ""
	}
	sd.Write("session/a", `{"tokens":{"wf":"current-a-0000"},"retired":["retired-a-0000"]}`)
	sd.Write("session/b", `{"tokens":{"wf":"current-b-0000"}}`)
	sd.Write("cursor/tools", `{"get_issue":"jira-server"}`)
	want := []string{secret, "fromTheConfig1", "fromTheEnviron2", "current-a-0000", "current-b-0000", "retired-a-0000"}
	got := Gather(p, Hook, getenv)
	if !cmp.Equal(sorted(got), sorted(want)) {
		t.Errorf("Gather = %q, want %q", got, want)
	}
	if i, j := slices.Index(got, "current-b-0000"), slices.Index(got, "retired-a-0000"); i > j {
		t.Errorf("a retired token comes before a current one: %q", got)
	}
	if got := (&Cache{}).Values(p, getenv); !cmp.Equal(sorted(got), sorted(want)) {
		t.Errorf("Cache.Values = %q, want %q", got, want)
	}
	for i := range 700 {
		sd.Write(fmt.Sprintf("session/planted-%d", i), `{}`)
	}
	sd.Remove([]string{"session/a"})
	if got := Gather(p, Hook, nil); !slices.Contains(got, "current-a-0000") || !slices.Contains(got, "retired-a-0000") {
		t.Errorf("planted and removed documents took tokens out: %q", got)
	}
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

// TestCacheSeesWrites: a long-lived host's cache sees what any process
// noted in the record, its own writes and another's.
func TestCacheSeesWrites(t *testing.T) {
	p, _ := home(t)
	c := &Cache{}
	if got := c.Values(p, nil); len(got) != 0 {
		t.Fatalf("empty home: %q", got)
	}
	if err := Note(p.StateDir(), `{"tokens":{"wf":"written-here-0000"}}`); err != nil {
		t.Fatal(err)
	}
	if got := c.Values(p, nil); !slices.Contains(got, "written-here-0000") {
		t.Errorf("own write not seen: %q", got)
	}
	// Another process's append, as its own line at the end.
	f, err := os.OpenFile(filepath.Join(p.StateDir(), RecordName), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`"written-there-0000"` + "\n")
	f.Close()
	if got := c.Values(p, nil); !slices.Contains(got, "written-there-0000") || !slices.Contains(got, "written-here-0000") {
		t.Errorf("another process's write not seen: %q", got)
	}
}

// TestEnviron: the names are ones the plugin takes for a secret's.
func TestEnviron(t *testing.T) {
	got := Environ([]string{"value-one-0000", "value-two-0000"})
	want := []string{"CTXHOOK_OWN_0_TOKEN=value-one-0000", "CTXHOOK_OWN_1_TOKEN=value-two-0000"}
	if !cmp.Equal(got, want) {
		t.Errorf("Environ = %q, want %q", got, want)
	}
}

// FuzzPresent: Present keeps every value of which a plain search finds a
// run of presentRun bytes in the texts (in any case, their \u and \/
// escapes decoded or not), and every value JSON could hold escaped only.
func FuzzPresent(f *testing.F) {
	f.Add("tok-a-000000", "value-two-000", "xx tok-a-000000 yy", "value-\"two")
	f.Add("abcdefgh", "bcdefghi", "abcdefghi", "")
	f.Add("f0a1B2c3d4e5f607", "0123456789abcdef", `x \\u0066\u0030A1b2c3d4 y`, "01234567\n89abcdef")
	f.Fuzz(func(t *testing.T, a, b, text1, text2 string) {
		got := Present([]string{a, b}, text1, text2)
		has := func(v string) bool {
			lv := asciiLower(v)
			for _, text := range []string{text1, text2, unescape(text1), unescape(text2)} {
				for i := 0; i+presentRun <= len(lv); i++ {
					if strings.Contains(asciiLower(text), lv[i:i+presentRun]) {
						return true
					}
				}
			}
			return false
		}
		for _, v := range []string{a, b} {
			want := len(v) >= minLen && (strings.ContainsAny(v, `"\\`) || has(v))
			if want && !slices.Contains(got, v) {
				t.Fatalf("Present dropped %q (texts %q %q): %q", v, text1, text2, got)
			}
		}
		for _, v := range got {
			if v != a && v != b {
				t.Fatalf("Present made up %q", v)
			}
		}
	})
}

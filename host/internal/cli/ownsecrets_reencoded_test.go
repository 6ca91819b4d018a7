package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/state"
)

// TestOwnSecretsReadOtherwise: the model reads the hook secret or a relay
// token in a form other than the exact bytes: a partial read, the value
// split over two lines, upper-cased, JSON-escaped by an MCP server (every
// character, or only '/' as PHP and some Java encoders do), or one
// character printed as a literal \u escape (or a token's slashes printed
// as \/, as a JSON text shows them). Each case is one PostToolUse
// hook through the real plugin and SQLite; afterwards no 12-byte run of
// the value may be found by `ctxhook search`.
func TestOwnSecretsReadOtherwise(t *testing.T) {
	const token = "Ab3/Xy9+Qw7/Lm2=Zk8pV4r6"
	uesc := func(s string) string {
		var b strings.Builder
		for _, c := range s {
			fmt.Fprintf(&b, `\u%04x`, c)
		}
		return b.String()
	}
	bash := func(out string) string {
		b, _ := json.Marshal(map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false})
		return string(b)
	}
	// rawMCP is an MCP result whose text string is text, already JSON.
	rawMCP := func(text string) string { return `[{"type":"text","text":"` + text + `"}]` }
	for _, tc := range []struct {
		name, tool, response string
		token                bool // the value is the relay token, else the hook secret
	}{
		{"all but the last character (head -c 63)", "Bash", bash("{HEAD63}"), false},
		{"split over two lines", "Bash", bash("{HEAD32}\n{REST}"), false},
		{"upper-cased", "Bash", bash("{UPPER}"), false},
		{"every character \\u-escaped", "mcp__shell__run", rawMCP("{UESC}"), false},
		{"one literal \\u escape", "Bash", bash("{ONEESC}"), false},
		{"slashes escaped by the server", "mcp__shell__run", rawMCP("{SLASHESC}"), true},
		{"slashes printed escaped", "Bash", bash("{SLASHESC}"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.vars["CTXHOOK_NO_DAEMON"] = "1"
			p, err := paths.Resolve(e.get)
			if err != nil {
				t.Fatal(err)
			}
			paths.EnsureDir(p.Data)
			secret, err := hooksecret.Ensure(hooksecret.Path(p.Data))
			if err != nil {
				t.Fatal(err)
			}
			sd, err := state.Open(p.StateDir())
			if err != nil {
				t.Fatal(err)
			}
			sd.Write("session/other-session", `{"mcp_calls":2,"tokens":{"workflow":"`+token+`"}}`)
			value := secret
			if tc.token {
				value = token
			}
			m := len(value) / 2
			oneEsc := value[:m] + fmt.Sprintf(`\u%04x`, value[m]) + value[m+1:]
			resp := strings.NewReplacer("{HEAD63}", value[:len(value)-1], "{HEAD32}", value[:m], "{REST}", value[m:],
				"{UPPER}", strings.ToUpper(value), "{UESC}", uesc(value), "{ONEESC}", oneEsc,
				"{SLASHESC}", strings.ReplaceAll(token, "/", `\/`)).Replace(tc.response)
			if !json.Valid([]byte(resp)) {
				t.Fatalf("bad response %s", resp)
			}
			payload := `{"session_id":"reader","hook_event_name":"PostToolUse","cwd":"/proj","tool_name":"` + tc.tool +
				`","tool_use_id":"toolu_1","tool_input":{"command":"cat f"},"tool_response":` + resp + `}`
			if out, errs, code := e.run(t, []byte(payload), "hook", "claude-code", "PostToolUse"); code != 0 {
				t.Fatalf("hook: exit %d\n%s%s", code, out, errs)
			}
			for _, run := range runs12(value) {
				out, _, _ := e.run(t, nil, "search", "--json", "--", run)
				var res struct{ Results []json.RawMessage }
				if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Results) > 0 {
					var hit struct{ Snippet string }
					if len(res.Results) > 0 {
						json.Unmarshal(res.Results[0], &hit)
					}
					t.Fatalf("search %q finds %q", run, hit.Snippet)
				}
			}
		})
	}
}

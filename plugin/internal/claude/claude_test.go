package claude

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/internal/payload"
)

func TestParseErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":            "",
		"spaces":           "  \n",
		"array":            "[1]",
		"truncated":        `{"session_id":"a"`,
		"tool_input array": `{"session_id":"a","tool_input":[1]}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(in)); !errors.Is(err, ErrPayload) {
				t.Fatalf("Parse(%q) err = %v, want ErrPayload", in, err)
			}
		})
	}
}

func TestOutputs(t *testing.T) {
	got := PreToolUseAllow(json.RawMessage(`{"id":"T-1","session_token":"x"}`), "")
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"id":"T-1","session_token":"x"}}}` + "\n"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	got = AdditionalContext(PostToolUse, "a <b> & c")
	want = `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"a <b> & c"}}` + "\n"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// seeds returns the real payloads recorded from Claude Code.
func seeds(tb testing.TB) [][]byte {
	files, _ := filepath.Glob("../../../testdata/payloads/claude-code/*/*.json")
	codex, _ := filepath.Glob("../../../testdata/payloads/codex/*/*.json") // same format
	files = append(files, codex...)
	if len(files) == 0 {
		tb.Fatal("no recorded payloads under testdata/payloads/claude-code")
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func TestParseRecorded(t *testing.T) {
	for _, b := range seeds(t) {
		p, err := Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		if p.SessionID == "" || p.HookEventName == "" {
			t.Errorf("missing session or event in %s", b[:80])
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, b := range seeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// The fast path gives what encoding/json gives, whenever it answers.
		if fast, ok := parseFast(b, nil); ok {
			var slow Payload
			if err := payload.Decode(b, &slow); err != nil || !reflect.DeepEqual(*fast, slow) {
				t.Fatalf("%q: fast %+v, encoding/json %+v (%v)", b, *fast, slow, err)
			}
		}
		p, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrPayload) {
				t.Fatalf("error not ErrPayload: %v", err)
			}
			return
		}
		if len(p.ToolInput) > 0 && string(p.ToolInput) != "null" && !json.Valid(p.ToolInput) {
			t.Fatalf("invalid tool_input accepted")
		}
	})
}

func TestParseOverflow(t *testing.T) {
	raw, err := os.ReadFile("../../../testdata/payloads/claude-code/2.1.330-large-result/hook-PostToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	real, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	ov, ok := real.ParseOverflow()
	if !ok || !strings.HasSuffix(ov.Path, "/f1485247-6c95-4268-8a59-0a226e251698/tool-results/mcp-big-big-1795444345912-myr5iy.txt") || ov.JSON {
		t.Fatalf("the real stub: %+v %v", ov, ok)
	}
	stub, _ := jsonStringOf(real.ToolResponse)
	dir := ov.Path[:strings.LastIndex(ov.Path, "/")]
	for _, tt := range []struct {
		name, path string
		ok         bool
	}{
		{"another name in the directory", dir + "/mcp-jira-search-1-abcdef.txt", true},
		{"outside the session's tool-results", "/home/u/.ssh/mcp-id_rsa.txt", false},
		{"climbing out", dir + "/../../../../../../etc/mcp-passwd.txt", false},
		{"another session", strings.Replace(dir, "f1485247-6c95-4268-8a59-0a226e251698", "00000000-0000-0000-0000-000000000000", 1) + "/mcp-x.txt", false},
		{"not one of Claude Code's MCP files", dir + "/toolu_1.txt", false},
		{"a subdirectory", dir + "/sub/mcp-x.txt", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := *real
			p.ToolResponse, _ = json.Marshal(strings.ReplaceAll(stub, ov.Path, tt.path))
			got, ok := p.ParseOverflow()
			if ok != tt.ok || ok && got.Path != tt.path {
				t.Fatalf("%s: got %+v %v, want ok %v", tt.path, got, ok, tt.ok)
			}
		})
	}
	for name, resp := range map[string]string{
		"an ordinary text result": `"Ticket CVX-1: Output has been saved to /tmp/x.txt"`,
		"content blocks":          `[{"type":"text","text":"Error: result (1 characters) exceeds maximum allowed tokens. Output has been saved to /tmp/mcp-x.txt.\nFormat: Plain text\n"}]`,
	} {
		p := *real
		p.ToolResponse = json.RawMessage(resp)
		if _, ok := p.ParseOverflow(); ok {
			t.Errorf("%s taken for an overflow stub", name)
		}
	}
	multi := *real
	multi.ToolResponse, _ = json.Marshal(strings.Replace(strings.Replace(stub, " across 110,379 lines", "", 1), "Format: Plain text", "Format: JSON array with schema: [{type: string, text: string}]", 1))
	if got, ok := multi.ParseOverflow(); !ok || !got.JSON {
		t.Errorf("several blocks: %+v %v", got, ok)
	}
}

func jsonStringOf(raw json.RawMessage) (string, error) {
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

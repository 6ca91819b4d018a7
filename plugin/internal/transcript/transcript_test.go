package transcript

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func read(t testing.TB, name string) []byte {
	b, err := os.ReadFile("../../../testdata/transcripts/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestClaudeCode(t *testing.T) {
	data := read(t, "claude-code-2.1.330.jsonl")
	turns, consumed := Parse(ClaudeCode, data, true)
	if len(turns) != 1 || consumed != len(data) {
		t.Fatalf("%d turns, consumed %d of %d", len(turns), consumed, len(data))
	}
	tr := turns[0]
	for _, want := range []string{"user: Check ticket CVX-5909", "tool mcp__tickets__get_ticket {\"id\":\"CVX-5909\"}",
		"result: Ticket CVX-5909: checkout fails", "tool mcp__ctxhook__search", "FINAL_ANSWER"} {
		if !strings.Contains(tr.Text, want) {
			t.Errorf("turn lacks %q", want)
		}
	}
	if tr.Session == "" || tr.Cwd == "" || tr.TimeMS == 0 {
		t.Errorf("turn %+v", tr)
	}
	if strings.Count(tr.Text, "user: Check ticket") != 1 {
		t.Errorf("the api-request-blob copy was read as conversation")
	}
	// Not final: the last turn may still grow, so it is left for the next
	// pass; only the bookkeeping lines before the prompt are consumed.
	first := bytes.Index(data, []byte(`"type":"user"`))
	first = bytes.LastIndexByte(data[:first], '\n') + 1
	if turns, consumed := Parse(ClaudeCode, data, false); len(turns) != 0 || consumed != first {
		t.Errorf("open turn: %d turns, consumed %d, want %d", len(turns), consumed, first)
	}
}

func TestCodex(t *testing.T) {
	data := read(t, "codex-0.169.0.jsonl")
	turns, consumed := Parse(Codex, data, true)
	if len(turns) != 1 || consumed != len(data) {
		t.Fatalf("%d turns, consumed %d of %d", len(turns), consumed, len(data))
	}
	tr := turns[0]
	for _, want := range []string{"user: Run the deploy-payments workflow", `tool mcp__workflow__step {"n":2}`,
		"result: Wall time", "Ticket CVX-5909", "assistant: FINAL_ANSWER"} {
		if !strings.Contains(tr.Text, want) {
			t.Errorf("turn lacks %q", want)
		}
	}
	if strings.Contains(tr.Text, "<environment_context>") || tr.Session == "" || tr.Cwd == "" {
		t.Errorf("setup text in the turn, or no session/cwd: %+v", tr.Session)
	}
}

// TestIncremental: a file read in pieces, each pass resuming where the
// last consumed, gives the same turns as one final pass.
func TestIncremental(t *testing.T) {
	one := func(p string) string {
		return `{"type":"user","timestamp":"2026-11-22T10:00:00Z","sessionId":"s","cwd":"/p","message":{"role":"user","content":"` + p + `"}}` + "\n" +
			`{"type":"assistant","timestamp":"2026-11-22T10:00:01Z","message":{"role":"assistant","content":[{"type":"text","text":"answer to ` + p + `"}]}}` + "\n"
	}
	data := []byte(one("first") + one("second") + one("third"))
	var got []string
	off := 0
	for _, cut := range []int{len(one("first")) + 10, len(data) - 5, len(data)} {
		turns, consumed := Parse(ClaudeCode, data[off:cut], cut == len(data))
		for _, tr := range turns {
			got = append(got, tr.Text)
		}
		off += consumed
	}
	want, _ := Parse(ClaudeCode, data, true)
	if len(got) != 3 || len(want) != 3 {
		t.Fatalf("incremental %d turns, whole %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i].Text {
			t.Errorf("turn %d: %q vs %q", i, got[i], want[i].Text)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"type":"user","message":{"content":"hi"}}`+"\n"), true, false)
	for _, name := range []string{"claude-code-2.1.330.jsonl", "codex-0.169.0.jsonl"} {
		b := read(f, name)
		f.Add(b[:min(len(b), 4000)], false, name == "codex-0.169.0.jsonl")
	}
	f.Fuzz(func(t *testing.T, data []byte, final, codex bool) {
		format := ClaudeCode
		if codex {
			format = Codex
		}
		turns, consumed := Parse(format, data, final)
		if consumed < 0 || consumed > len(data) {
			t.Fatalf("consumed %d of %d", consumed, len(data))
		}
		if consumed > 0 && data[consumed-1] != '\n' {
			t.Fatalf("consumed ends mid-line")
		}
		for _, tr := range turns {
			if len(tr.Text) > MaxChunk+100 {
				t.Fatalf("chunk of %d bytes", len(tr.Text))
			}
		}
	})
}

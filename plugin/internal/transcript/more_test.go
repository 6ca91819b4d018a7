package transcript

import (
	"bytes"
	"strings"
	"testing"
)

// openCodeSeed is two messages as the host renders an OpenCode session.
const openCodeSeed = `{"session":"ses_1","directory":"/p","time":1795794757755,"message":{"role":"user"},"parts":[{"type":"text","text":"Check ticket CVX-5909."}]}
{"session":"ses_1","directory":"/p","time":1795794795099,"message":{"role":"assistant"},"parts":[{"type":"step-start"},{"type":"tool","tool":"tickets_get_ticket","state":{"status":"completed","input":{"id":"CVX-5909"},"output":"Root cause suspected in retryPolicyForGateway."}}]}
`

// TestRecordedFormats: each recorded history (real clients, fake model)
// gives one turn holding the prompt, the tool calls and their results,
// with its session, project and time; nothing of the client's own
// bookkeeping starts a turn.
func TestRecordedFormats(t *testing.T) {
	for _, tt := range []struct {
		format, file string
		data         []byte
		want         []string
		cwd          bool
	}{
		{Copilot, "copilot-1.0.102.jsonl", nil, []string{"user: Run the deploy-payments workflow", "tool tickets-get_ticket {\"id\":\"CVX-5909\"}", "result: Ticket CVX-5909", "assistant: FINAL_ANSWER"}, true},
		{Droid, "droid-0.225.2.jsonl", nil, []string{"user: Run the deploy-payments workflow", "tool tickets___get_ticket {\"id\":\"CVX-5909\"}", "result: Ticket CVX-5909", "assistant: FINAL_ANSWER"}, true},
		{Gemini, "gemini-0.61.0.jsonl", nil, []string{"user: Run the deploy-payments workflow", "tool mcp_tickets_get_ticket {\"id\":\"CVX-5909\"}", "Ticket CVX-5909: checkout fails", "assistant: FINAL_ANSWER"}, false},
		{Qwen, "qwen-0.24.4.jsonl", nil, []string{"user: Run the deploy-payments workflow", "tool tool_call {", "result: Ticket CVX-5909", "assistant: FINAL_ANSWER"}, true},
		{Pi, "pi-1.6.0.jsonl", nil, []string{"user: Run the deploy-payments workflow", "tool mcp__tickets__get_ticket {\"id\":\"CVX-5909\"}", "result: Ticket CVX-5909", "assistant: FINAL_ANSWER"}, true},
		{OpenCode, "", []byte(openCodeSeed), []string{"user: Check ticket CVX-5909.", "tool tickets_get_ticket {\"id\":\"CVX-5909\"}", "result: Root cause suspected in retryPolicyForGateway."}, true},
	} {
		t.Run(tt.format, func(t *testing.T) {
			data := tt.data
			if tt.file != "" {
				data = read(t, tt.file)
			}
			turns, consumed := Parse(tt.format, data, true)
			if len(turns) != 1 || consumed != len(data) {
				t.Fatalf("%d turns, consumed %d of %d", len(turns), consumed, len(data))
			}
			tr := turns[0]
			for _, w := range tt.want {
				if !strings.Contains(tr.Text, w) {
					t.Errorf("turn lacks %q:\n%.2000s", w, tr.Text)
				}
			}
			if tr.Session == "" || tr.TimeMS == 0 || (tt.cwd && tr.Cwd == "") {
				t.Errorf("session %q, time %d, cwd %q", tr.Session, tr.TimeMS, tr.Cwd)
			}
			if strings.Contains(tr.Text, "<session_context>") || strings.Contains(tr.Text, "<system-reminder>") || strings.Contains(tr.Text, "assistant: \n") {
				t.Errorf("turn holds the client's own context or empty lines:\n%.3000s", tr.Text)
			}
			// Unfinished, the turn waits for the next pass.
			if turns, consumed := Parse(tt.format, data, false); len(turns) != 0 || consumed >= len(data) {
				t.Errorf("unfinished: %d turns, consumed %d", len(turns), consumed)
			}
		})
	}
}

// TestHostileLines: a huge line, deep nesting, bad UTF-8 and lines of the
// wrong type are read past in every format; nothing panics.
func TestHostileLines(t *testing.T) {
	huge := `{"type":"user.message","data":{"content":"` + strings.Repeat("x", 8<<20) + `"}}` + "\n"
	deep := strings.Repeat(`{"a":[`, 20000) + strings.Repeat(`]}`, 20000) + "\n"
	bad := "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"\xff\xfe prompt\"}}\n"
	wrong := `{"type":5,"data":[],"message":"x","parts":{},"content":{"a":1},"toolCalls":"no"}` + "\n"
	for format := range lineReaders {
		for _, in := range []string{huge, deep, bad, wrong, "\n\n", "not json\n"} {
			turns, consumed := Parse(format, []byte(in), true)
			if consumed != len(in) {
				t.Errorf("%s: consumed %d of %d", format, consumed, len(in))
			}
			for _, tr := range turns {
				if len(tr.Text) > MaxChunk+100 {
					t.Errorf("%s: a chunk of %d bytes", format, len(tr.Text))
				}
			}
		}
	}
}

// FuzzParseFormats: every format of more.go consumes whole lines only,
// never more than it was given, and keeps chunks within MaxChunk.
func FuzzParseFormats(f *testing.F) {
	formats := []string{Copilot, Droid, Gemini, OpenCode, Kilo, Qwen, Pi}
	f.Add([]byte(openCodeSeed), true, uint8(3))
	for i, name := range []string{"copilot-1.0.102.jsonl", "droid-0.225.2.jsonl", "gemini-0.61.0.jsonl", "", "", "qwen-0.24.4.jsonl", "pi-1.6.0.jsonl"} {
		if name == "" {
			continue
		}
		b := read(f, name)
		f.Add(b[:min(len(b), 6000)], false, uint8(i))
		f.Add(b[len(b)-min(len(b), 3000):], true, uint8(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, final bool, which uint8) {
		format := formats[int(which)%len(formats)]
		turns, consumed := Parse(format, data, final)
		if consumed < 0 || consumed > len(data) {
			t.Fatalf("consumed %d of %d", consumed, len(data))
		}
		if consumed > 0 && data[consumed-1] != '\n' {
			t.Fatalf("consumed ends mid-line")
		}
		if final && consumed != bytes.LastIndexByte(data, '\n')+1 {
			t.Fatalf("final: consumed %d, whole lines %d", consumed, bytes.LastIndexByte(data, '\n')+1)
		}
		for _, tr := range turns {
			if len(tr.Text) > MaxChunk+100 {
				t.Fatalf("chunk of %d bytes", len(tr.Text))
			}
		}
	})
}

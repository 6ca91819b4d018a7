package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// historyLayout is where each recorded history lies under a home, as its
// client writes it.
var historyLayout = map[string]string{
	"claude-code-2.1.330.jsonl": ".claude/projects/-p/s1.jsonl",
	"codex-0.169.0.jsonl":       ".codex/sessions/2026/11/27/rollout-s2.jsonl",
	"copilot-1.0.102.jsonl":     ".copilot/session-state/s3/events.jsonl",
	"droid-0.225.2.jsonl":       ".factory/sessions/-p/s4.jsonl",
	"gemini-0.61.0.jsonl":       ".gemini/tmp/p/chats/session-s5.jsonl",
	"qwen-0.24.4.jsonl":         ".qwen/projects/-p/chats/s6.jsonl",
	"pi-1.6.0.jsonl":            ".pi/agent/sessions/--p--/t_s7.jsonl",
	"opencode-1.18.33.db":       ".local/share/opencode/opencode.db",
	"kilo-7.7.7.db":             ".local/share/kilo/kilo.db",
}

// plantHistory writes every recorded history into home, as written an
// hour ago (before ctxhook was installed, and quiet since).
func plantHistory(t *testing.T, home string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for src, dst := range historyLayout {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "transcripts", src))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(home, dst)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
}

// TestIndexAll: `ctxhook index --all` imports the history every harness
// wrote before install (one turn each of the nine recorded), a second
// run indexes nothing again, and a turn appended later is all the third
// run adds.
func TestIndexAll(t *testing.T) {
	e := newEnv(t)
	home := e.vars["HOME"]
	plantHistory(t, home)
	out, errs, code := e.run(t, nil, "index", "--all")
	if code != 0 || !strings.Contains(out, "Indexed 9 new turns from 9 transcripts; 9 turns in the store.") {
		t.Fatalf("first run: %d %q %q", code, out, errs)
	}
	out, errs, code = e.run(t, nil, "index", "--all")
	if code != 0 || !strings.Contains(out, "Indexed 0 new turns from 9 transcripts; 9 turns in the store.") {
		t.Fatalf("second run: %d %q %q", code, out, errs)
	}
	// A new prompt appended to Pi's session: one more turn, nothing twice.
	pi := filepath.Join(home, historyLayout["pi-1.6.0.jsonl"])
	f, _ := os.OpenFile(pi, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"message","id":"x1","timestamp":"2026-11-27T17:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"Now check ticket ZED-77."}]}}` + "\n")
	f.Close()
	old := time.Now().Add(-time.Hour)
	os.Chtimes(pi, old, old)
	out, errs, code = e.run(t, nil, "index")
	if code != 0 || !strings.Contains(out, "Indexed 1 new turn from 9 transcripts; 10 turns in the store.") {
		t.Fatalf("after an append: %d %q %q", code, out, errs)
	}
	if out, _, _ := e.run(t, nil, "search", "retryPolicyForGateway"); strings.Count(out, "#c") != 9 {
		t.Errorf("search finds the planted fact in %d turns, want one per harness:\n%s", strings.Count(out, "#c"), out)
	}
}

// TestIndexSkipsHostileEntries: a link in a history directory pointing
// elsewhere is not followed and a file others may write is not read; each
// is named on stderr and the rest is indexed.
func TestIndexSkipsHostileEntries(t *testing.T) {
	e := newEnv(t)
	home := e.vars["HOME"]
	plantHistory(t, home)
	outside := filepath.Join(t.TempDir(), "elsewhere.jsonl")
	os.WriteFile(outside, []byte(`{"type":"user","sessionId":"x","message":{"content":"the zanzibar secret plan"}}`+"\n"), 0o600)
	os.Symlink(outside, filepath.Join(home, ".claude/projects/-p/link.jsonl"))
	os.Symlink(filepath.Dir(outside), filepath.Join(home, ".claude/projects/linked-dir"))
	os.Symlink(outside, filepath.Join(home, ".claude/projects/-p/evil\x1b[2J.jsonl"))
	shared := filepath.Join(home, ".factory/sessions/-p/shared.jsonl")
	os.WriteFile(shared, []byte(`{"type":"message","message":{"role":"user","content":"the zanzibar plan"}}`+"\n"), 0o600)
	os.Chmod(shared, 0o666)
	out, errs, code := e.run(t, nil, "index", "--all")
	if code != 0 || !strings.Contains(out, "Indexed 9 new turns") || !strings.Contains(errs, "link.jsonl\": ") || !strings.Contains(errs, "shared.jsonl\": ") {
		t.Fatalf("%d %q %q", code, out, errs)
	}
	if strings.Contains(errs, "\x1b") {
		t.Errorf("a file name's escape sequence reached stderr: %q", errs)
	}
	if out, _, _ := e.run(t, nil, "search", "zanzibar"); strings.Contains(out, "#c") {
		t.Errorf("a skipped file was indexed:\n%s", out)
	}
}

// TestIndexProgress: a long run reports its share done, speed, files and
// the time left, at most once a second, and a last line at the end.
func TestIndexProgress(t *testing.T) {
	var b bytes.Buffer
	start := time.Unix(1000, 0)
	clock := start
	p := newProgress(&b, 100e6, 4, start)
	p.now = func() time.Time { return clock }
	clock = start.Add(500 * time.Millisecond)
	p.done(1, 10e6) // within the first second: nothing
	clock = start.Add(2 * time.Second)
	p.done(2, 30e6)
	clock = start.Add(2500 * time.Millisecond)
	p.done(3, 10e6) // within a second of the last line: nothing
	clock = start.Add(5 * time.Second)
	p.done(4, 50e6)
	p.finish()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []*regexp.Regexp{
		regexp.MustCompile(`^ctxhook: index:  40% \(40\.0 MB of 100\.0 MB, 20\.0 MB/s\), 2 of 4 files, about 3s left$`),
		regexp.MustCompile(`^ctxhook: index: 100% \(100\.0 MB of 100\.0 MB, 20\.0 MB/s\), 4 of 4 files, about 0s left$`),
		regexp.MustCompile(`^ctxhook: index: 100% .* 4 of 4 files, about 0s left$`),
	}
	if len(lines) != len(want) {
		t.Fatalf("progress:\n%s", b.String())
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("line %d: %q", i, lines[i])
		}
	}
	var quiet bytes.Buffer
	q := newProgress(&quiet, progressMin-1, 1, start)
	q.now = func() time.Time { return start.Add(time.Minute) }
	q.done(1, progressMin-1)
	q.finish()
	if quiet.Len() != 0 {
		t.Errorf("a short run showed progress: %q", quiet.String())
	}
}

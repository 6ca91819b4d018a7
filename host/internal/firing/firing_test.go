package firing

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// fixtures copies the recorded transcripts where each harness keeps them
// under a home of the test's own, dated now, and returns its getenv.
func fixtures(t *testing.T, now time.Time) func(string) string {
	home := t.TempDir()
	for _, c := range []struct{ src, dst string }{
		{"claude-code-2.1.330.jsonl", ".claude/projects/-work-project/df40db9a-aa1e-4659-910a-3f5b6272f288.jsonl"},
		{"codex-0.169.0.jsonl", ".codex/sessions/2026/11/22/rollout-2026-11-22T22-15-20-01a20553-fd96-7bc0-adcc-58bdf938d2d1.jsonl"},
	} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "transcripts", c.src))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(home, filepath.FromSlash(c.dst))
		os.MkdirAll(filepath.Dir(dst), 0o700)
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(dst, now, now)
	}
	return func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
}

// TestSessionsFromRealTranscripts: the MCP calls, session and client
// version of the transcripts Claude Code 2.1.330 and Codex CLI 0.169.0
// wrote.
func TestSessionsFromRealTranscripts(t *testing.T) {
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	getenv := fixtures(t, now)
	for _, c := range []struct {
		harness, id, version string
		calls                int
		last                 string
	}{
		{"claude-code", "df40db9a-aa1e-4659-910a-3f5b6272f288", "2.1.330", 3, "2026-11-22"},
		{"codex", "01a20553-fd96-7bc0-adcc-58bdf938d2d1", "0.169.0", 5, "2026-11-22"},
	} {
		got := Sessions(c.harness, getenv, now)
		if len(got) != 1 {
			t.Fatalf("%s: %d sessions with MCP calls, want 1: %+v", c.harness, len(got), got)
		}
		s := got[0]
		if s.ID != c.id || s.Version != c.version || s.Calls != c.calls || s.LastCall.Format(time.DateOnly) != c.last {
			t.Errorf("%s: got %+v, want id %s version %s, %d calls, last on %s", c.harness, s, c.id, c.version, c.calls, c.last)
		}
	}
	if got := Sessions("claude-code", getenv, now.Add(maxAge+time.Hour)); len(got) != 0 {
		t.Errorf("a transcript older than %v was read: %+v", maxAge, got)
	}
}

// TestReport: per event, firing when a hook arrived for the latest
// session with MCP calls, silent when none did, not configured when not
// wired; a hook of a later session makes up for an older silent one.
func TestReport(t *testing.T) {
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	getenv := fixtures(t, now)
	dir := t.TempDir()
	payload := []byte(`{"session_id":"df40db9a-aa1e-4659-910a-3f5b6272f288","transcript_path":"/x.jsonl","hook_event_name":"PostToolUse"}`)
	if err := Record(dir, "claude-code", "PostToolUse", payload, now.Add(-2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	// Fired before the session's calls, for another session: silent.
	Record(dir, "claude-code", "Stop", []byte(`{"session_id":"older"}`), time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	events := []string{"SessionStart", "PreToolUse", "PostToolUse", "Stop", "PreCompact"}
	wired := map[string]bool{"PreToolUse": true, "PostToolUse": true, "Stop": true, "PreCompact": true}
	want := map[string]string{"SessionStart": NotConfigured, "PreToolUse": Silent, "PostToolUse": Firing, "Stop": Silent, "PreCompact": NotYet}
	for _, st := range Report(dir, "claude-code", events, wired, getenv, now) {
		if st.State != want[st.Event] {
			t.Errorf("%s: %q, want %q (%+v)", st.Event, st.State, want[st.Event], st)
		}
		if st.State == Silent && (st.Missed == nil || st.Missed.ID != "df40db9a-aa1e-4659-910a-3f5b6272f288" || st.Missed.Version != "2.1.330") {
			t.Errorf("%s: silent without the session that shows it: %+v", st.Event, st.Missed)
		}
		if st.Event == "PostToolUse" && st.ClientVersion != "2.1.330" {
			t.Errorf("PostToolUse fired from client %q, want 2.1.330", st.ClientVersion)
		}
	}
	// A Stop hook after the session's last call: no longer silent.
	Record(dir, "claude-code", "Stop", []byte(`{"session_id":"newer"}`), now)
	for _, st := range Report(dir, "claude-code", []string{"Stop"}, wired, getenv, now) {
		if st.State != Firing {
			t.Errorf("Stop after a later hook: %q", st.State)
		}
	}
}

// TestRecordKeepsItsFileToTheUser: the record is 0600 in a 0700
// directory, keeps at most keepSessions sessions, and refuses names that
// are not plain (a harness name from the command line becomes a file
// name).
func TestRecordKeepsItsFileToTheUser(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fired")
	now := time.Now()
	for i := range keepSessions + 5 {
		if err := Record(dir, "codex", "PostToolUse", []byte(`{"session_id":"s`+string(rune('A'+i))+`"}`), now.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	f := Load(dir, "codex")["PostToolUse"]
	if f == nil || len(f.Sessions) != keepSessions || f.Sessions[len(f.Sessions)-1] != HashID("s"+string(rune('A'+keepSessions+4))) {
		t.Fatalf("record %+v", f)
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(filepath.Join(dir, "codex.PostToolUse.json"))
		di, _ := os.Stat(dir)
		if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
			t.Errorf("modes %v and %v, want 0600 and 0700", fi.Mode().Perm(), di.Mode().Perm())
		}
	}
	for _, bad := range []string{"../x", "a/b", "", "x.json", "a b"} {
		if Record(dir, bad, "PostToolUse", nil, now) == nil || Record(dir, "codex", bad, nil, now) == nil {
			t.Errorf("name %q was taken", bad)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in %s, want only codex.PostToolUse.json", len(entries), dir)
	}
}

// TestClaudeCallsCountedOnce: Claude Code writes copies of the
// conversation (api-request-blob lines) and may write an assistant line
// again; each call counts once.
func TestClaudeCallsCountedOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p")
	os.MkdirAll(dir, 0o700)
	call := `{"type":"assistant","sessionId":"s1","timestamp":"2026-11-22T22:16:20.192Z","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"mcp__tickets__get_ticket","input":{}}]}}`
	blob := `{"type":"api-request-blob","timestamp":"2026-11-22T22:16:21Z","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"mcp__tickets__get_ticket"}]}}`
	os.WriteFile(filepath.Join(dir, "s1.jsonl"), []byte(call+"\n"+blob+"\n"+call+"\n"), 0o600)
	s := readSession(filepath.Join(dir, "s1.jsonl"), claudeLine)
	if s.Calls != 1 || s.ID != "s1" {
		t.Errorf("got %d calls in session %q, want 1 in s1", s.Calls, s.ID)
	}
}

// BenchmarkRecord: what a hook pays to note that it ran (a new session
// each time, so no write is skipped).
func BenchmarkRecord(b *testing.B) {
	dir := b.TempDir()
	now := time.Now()
	for i := 0; i < b.N; i++ {
		Record(dir, "claude-code", "PostToolUse", []byte(`{"session_id":"s`+time.Duration(i).String()+`","transcript_path":"/home/u/.claude/projects/p/s.jsonl"}`), now.Add(time.Duration(i)*time.Second))
	}
}

// BenchmarkRecordSameSession: what most hooks pay (the session known,
// noted within the minute: no write).
func BenchmarkRecordSameSession(b *testing.B) {
	dir := b.TempDir()
	now := time.Now()
	p := []byte(`{"session_id":"s1","transcript_path":"/home/u/.claude/projects/p/s.jsonl"}`)
	Record(dir, "claude-code", "PostToolUse", p, now)
	for i := 0; i < b.N; i++ {
		Record(dir, "claude-code", "PostToolUse", p, now.Add(time.Millisecond))
	}
}

package firing

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func payload(t *testing.T, rel string) []byte {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "payloads", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRecordKeepsNoToken: Auggie's payload names no session at the top;
// with the relay token argument named session_id, the token sits in
// tool_input. The record must not hold it, nor any session id in clear.
func TestRecordKeepsNoToken(t *testing.T) {
	p := payload(t, "auggie/0.36.0/hook-PostToolUse.json")
	p = bytes.Replace(p, []byte(`"session_token": "wfs_`), []byte(`"session_id": "wfs_`), 1)
	droid := payload(t, "droid/0.225.2/hook-PostToolUse-workflow___step.json")
	dir := t.TempDir()
	now := time.Now()
	if err := Record(dir, "auggie", "PostToolUse", p, now); err != nil {
		t.Fatal(err)
	}
	if err := Record(dir, "droid", "PostToolUse", droid, now); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"auggie.PostToolUse.json", "droid.PostToolUse.json"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		if bytes.Contains(b, []byte("wfs_")) || bytes.Contains(b, []byte(`"fbab0048-3ca3-4153-919a-d02a7f62c519"`)) {
			t.Errorf("%s keeps a token or a session id in clear: %s", name, b)
		}
	}
	if f := Load(dir, "droid")["PostToolUse"]; f == nil || f.Session != HashID("fbab0048-3ca3-4153-919a-d02a7f62c519") {
		t.Errorf("droid record %+v, want the session's hash", f)
	}
}

// TestRecordTakesTopLevelTranscript: Droid writes tool_input before its
// own transcript_path; a transcript_path the model put in a tool's
// arguments is not the one recorded.
func TestRecordTakesTopLevelTranscript(t *testing.T) {
	p := payload(t, "droid/0.225.2/hook-PostToolUse-tickets___get_ticket.json")
	p = bytes.Replace(p, []byte(`"id": "CVX-5909"`), []byte(`"id": "CVX-5909", "transcript_path": "/dev/urandom"`), 1)
	dir := t.TempDir()
	if err := Record(dir, "droid", "PostToolUse", p, time.Now()); err != nil {
		t.Fatal(err)
	}
	f := Load(dir, "droid")["PostToolUse"]
	if f == nil || !strings.HasSuffix(f.Transcript, "/fbab0048-3ca3-4153-919a-d02a7f62c519.jsonl") {
		t.Fatalf("recorded transcript %+v, want the harness's own", f)
	}
}

// TestTranscriptLinkNotFollowed: a transcript path that is a symbolic
// link (to a file with a version in it) is not read.
func TestTranscriptLinkNotFollowed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need privileges")
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "real.jsonl")
	os.WriteFile(real, []byte(`{"type":"user","version":"9.9.9","sessionId":"x"}`+"\n"), 0o600)
	link := filepath.Join(dir, "link.jsonl")
	os.Symlink(real, link)
	if v := versionOf(&Fired{Transcript: real}, nil); v != "9.9.9" {
		t.Fatalf("own file: version %q", v)
	}
	if v := versionOf(&Fired{Transcript: link}, nil); v != "" {
		t.Errorf("through a link: version %q", v)
	}
}

// TestPrintEscapesControls: a version or session id from a transcript
// reaches the terminal with its escape sequences made visible.
func TestPrintEscapesControls(t *testing.T) {
	var b bytes.Buffer
	Print(&b, []Status{
		{Event: "Stop", State: Firing, ClientVersion: "1.0\x1b]52;c;ZXZpbA==\x07"},
		{Harness: "claude-code", Event: "Stop", State: Silent, Missed: &Session{ID: "s\x1b[2J", Version: "\x9b31m"}},
	})
	if bytes.ContainsAny(b.Bytes(), "\x1b\x07") || strings.Contains(b.String(), "\u009b") {
		t.Errorf("control characters printed raw: %q", b.String())
	}
}

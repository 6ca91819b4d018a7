package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/testcache"
)

const payloads = "../../../testdata/payloads/claude-code/2.1.330/"

func payload(t *testing.T, event string) []byte {
	t.Helper()
	b, err := os.ReadFile(payloads + "hook-" + event + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type env map[string]string

func (e env) get(k string) string { return e[k] }

// home returns a CTXHOOK_HOME with the relay on for "tickets", and a
// shared compilation cache so tests do not recompile the plugin each time.
func home(t *testing.T) env {
	t.Helper()
	h := t.TempDir()
	os.MkdirAll(filepath.Join(h, "config"), 0o700)
	os.WriteFile(filepath.Join(h, "config", "config.toml"), []byte("[servers.tickets]\nrelay = true\n"), 0o600)
	testcache.LinkWasm(h)
	// A budget a loaded machine keeps; tests of deadlines set their own.
	return env{"CTXHOOK_HOME": h, "CTXHOOK_HOOK_DEADLINE_MS": "120000"}
}

func runHook(t *testing.T, e env, event string, stdin []byte) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), "claude-code", event, IO{Stdin: bytes.NewReader(stdin), Stdout: &out, Stderr: &errb}, e.get)
	return out.String(), errb.String(), code
}

func openStore(t *testing.T, e env) *store.Store {
	t.Helper()
	p, _ := paths.Resolve(e.get)
	st, err := store.Open(p.DB(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestRelayAcrossProcesses: a token captured by one hook invocation (its
// own plugin instance, as in its own process) is injected by the next.
func TestRelayAcrossInvocations(t *testing.T) {
	e := home(t)
	// A server that puts the token in a JSON text block, as Claude Code
	// hooks never see result _meta.
	post := bytes.Replace(payload(t, "PostToolUse"), []byte(`"tool_response": [`),
		[]byte(`"tool_response": [{"type": "text", "text": "{\"session_token\":\"tok_from_server_0123456789\"}"},`), 1)
	if out, errs, code := runHook(t, e, "PostToolUse", post); code != 0 || !strings.Contains(out, "additionalContext") {
		t.Fatalf("post: code %d out %q err %q", code, out, errs)
	}
	out, errs, code := runHook(t, e, "PreToolUse", payload(t, "PreToolUse"))
	if code != 0 || errs != "" {
		t.Fatalf("pre: code %d err %q", code, errs)
	}
	var o struct {
		HookSpecificOutput struct {
			PermissionDecision string         `json:"permissionDecision"`
			UpdatedInput       map[string]any `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	if o.HookSpecificOutput.UpdatedInput["session_token"] != "tok_from_server_0123456789" || o.HookSpecificOutput.PermissionDecision != "allow" {
		t.Fatalf("pre stdout = %s", out)
	}
	// The event is searchable as soon as the hook returned, and the token
	// is not stored.
	hits, err := openStore(t, e).Search(store.ParseQuery("TCK-42"), store.SearchOptions{})
	if err != nil || len(hits) != 1 {
		t.Fatalf("search: %v %v", hits, err)
	}
	if strings.Contains(hits[0].Event.Response, "tok_from_server") {
		t.Errorf("relay token stored")
	}
}

// TestNudgeCounterSurvivesInvocations: 22 separate invocations of one
// session are nudged on calls 1, 11 and 21, the counter living in state
// files between them.
func TestNudgeCounterSurvivesInvocations(t *testing.T) {
	e := home(t)
	var fired []int
	for call := 1; call <= 22; call++ {
		out, errs, code := runHook(t, e, "PostToolUse", payload(t, "PostToolUse"))
		if code != 0 || errs != "" {
			t.Fatalf("call %d: code %d err %q", call, code, errs)
		}
		if strings.Contains(out, "additionalContext") {
			fired = append(fired, call)
		}
	}
	if len(fired) != 3 || fired[0] != 1 || fired[1] != 11 || fired[2] != 21 {
		t.Fatalf("nudged calls %v, want [1 11 21]", fired)
	}
}

// The fail-open contract: exit 0, empty stdout, one line on stderr.
func TestFailOpen(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, e env)
		stdin []byte
		want  string // in stderr
	}{
		{"malformed input", nil, []byte(`{"session_id": `), "bad hook payload"},
		{"empty input", nil, []byte(""), "bad hook payload"},
		{"not an object", nil, []byte(`[1,2]`), "bad hook payload"},
		{"binary garbage", nil, []byte("\x00\x01"), "bad hook payload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := home(t)
			if tt.setup != nil {
				tt.setup(t, e)
			}
			out, errs, code := runHook(t, e, "PostToolUse", tt.stdin)
			if code != 0 || out != "" {
				t.Fatalf("code %d stdout %q", code, out)
			}
			if !strings.Contains(errs, tt.want) || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "ctxhook: ") {
				t.Fatalf("stderr %q, want one ctxhook line containing %q", errs, tt.want)
			}
		})
	}
}

// openForever holds pipe ends a test must never close.
var openForever []*os.File

func TestDeadline(t *testing.T) {
	e := home(t)
	e["CTXHOOK_HOOK_DEADLINE_MS"] = "50"
	r, w, _ := os.Pipe() // stdin that never closes
	// Nor in this test: closed, it would let the hook's reader go on
	// after Run returned and write into the home being removed.
	openForever = append(openForever, w)
	var out, errb bytes.Buffer
	start := time.Now()
	code := Run(context.Background(), "claude-code", "PostToolUse", IO{Stdin: r, Stdout: &out, Stderr: &errb}, e.get)
	if code != 0 || out.Len() != 0 || !strings.Contains(errb.String(), "gave up after 50ms") {
		t.Fatalf("code %d out %q err %q", code, out.String(), errb.String())
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v", d)
	}
}

// TestDeadlineHandsOn: at the deadline a hook whose payload was read in
// full hands it to Finish, named, and marked late; one whose stdin never
// closed has nothing to hand on. A late hook is never handed on again: it
// gets the late budget and answers.
func TestDeadlineHandsOn(t *testing.T) {
	type call struct {
		payload []byte
		extra   []string
	}
	run := func(e env, stdin io.Reader) (calls []call, stdout, stderr string) {
		var out, errb bytes.Buffer
		finish := func(harness, event string, payload []byte, extra []string) error {
			if harness != "claude-code" || event != "PostToolUse" {
				t.Errorf("handed on %s %s", harness, event)
			}
			calls = append(calls, call{payload, extra})
			return nil
		}
		if code := Run(context.Background(), "claude-code", "PostToolUse", IO{Stdin: stdin, Stdout: &out, Stderr: &errb, Finish: finish}, e.get); code != 0 {
			t.Errorf("exit %d", code)
		}
		return calls, out.String(), errb.String()
	}
	p := payload(t, "PostToolUse")

	// 40 ms: the payload is read at once (within 5 ms it was not, on a
	// busy machine), loading the plugin takes longer (100 ms or more from
	// the compilation cache).
	e := home(t)
	e["CTXHOOK_HOOK_DEADLINE_MS"] = "40"
	calls, out, stderr := run(e, bytes.NewReader(p))
	if len(calls) != 1 || !bytes.Equal(calls[0].payload, p) || out != "" || !strings.Contains(stderr, "finishes in the background") {
		t.Fatalf("handed on %d times, stdout %q, stderr %q", len(calls), out, stderr)
	}
	extra := strings.Join(calls[0].extra, " ")
	if !strings.Contains(extra, EnvLate+"=1") || !strings.Contains(extra, hookproto.EnvRequestID+"=") {
		t.Errorf("finisher's environment %q: want it late and named", extra)
	}
	e[hookproto.EnvRequestID] = "given-by-the-client"
	if calls, _, _ = run(e, bytes.NewReader(p)); len(calls) != 1 || strings.Contains(strings.Join(calls[0].extra, " "), hookproto.EnvRequestID) {
		t.Errorf("a named hook keeps its name (inherited by the finisher), got %+v", calls)
	}
	// This process's own runs go on behind the answers; let them end
	// before the directory is removed.
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end) && eventsIn(t, e) < 2; {
		time.Sleep(20 * time.Millisecond)
	}

	r, w, _ := os.Pipe() // stdin that never closes
	// Nor in this test: closed, it would let the hook's reader go on
	// after Run returned and write into the home being removed.
	openForever = append(openForever, w)
	e = home(t)
	e["CTXHOOK_HOOK_DEADLINE_MS"] = "5"
	if calls, _, stderr = run(e, r); len(calls) != 0 || !strings.Contains(stderr, "gave up") {
		t.Errorf("an unread payload was handed on (%d), stderr %q", len(calls), stderr)
	}

	e = home(t)
	e["CTXHOOK_HOOK_DEADLINE_MS"] = "5"
	e[EnvLate] = "1"
	if calls, out, _ = run(e, bytes.NewReader(p)); len(calls) != 0 || !strings.Contains(out, "additionalContext") {
		t.Errorf("a late hook: handed on %d times, answer %q; want it run to the end", len(calls), out)
	}
}

// A store that cannot be written (corrupt file) does not lose the event: it
// is spooled, and the next hook with a healthy store writes it.
func TestCorruptStoreSpoolsAndReplays(t *testing.T) {
	e := home(t)
	p, _ := paths.Resolve(e.get)
	paths.EnsureDir(p.Data)
	os.WriteFile(p.DB(), bytes.Repeat([]byte("not a database "), 100), 0o600)
	out, errs, code := runHook(t, e, "PostToolUse", payload(t, "PostToolUse"))
	if code != 0 || !strings.Contains(out, "additionalContext") {
		t.Fatalf("decision lost on a corrupt store: code %d out %q", code, out)
	}
	if !strings.Contains(errs, "spooled") {
		t.Fatalf("stderr %q does not say the events were spooled", errs)
	}
	spooled, _ := filepath.Glob(filepath.Join(p.SpoolDir(), "*.jsonl"))
	if len(spooled) != 1 {
		t.Fatalf("spool files %v", spooled)
	}
	if fi, _ := os.Stat(spooled[0]); fi.Mode().Perm() != 0o600 {
		t.Errorf("spool mode %v", fi.Mode().Perm())
	}
	// The user moves the broken file away; the next hook replays the spool.
	os.Rename(p.DB(), p.DB()+".broken")
	if _, errs, _ := runHook(t, e, "UserPromptSubmit", payload(t, "UserPromptSubmit")); errs != "" {
		t.Fatalf("second hook: %q", errs)
	}
	hits, err := openStore(t, e).Search(store.ParseQuery("TCK-42 printer"), store.SearchOptions{})
	if err != nil || len(hits) == 0 {
		t.Fatalf("spooled event not replayed: %v %v", hits, err)
	}
	if left, _ := filepath.Glob(filepath.Join(p.SpoolDir(), "*")); len(left) != 0 {
		t.Errorf("spool not emptied: %v", left)
	}
}

// A store locked by another process past the busy timeout: the decision
// still comes out, the event is spooled.
func TestLockedStore(t *testing.T) {
	e := home(t)
	st := openStore(t, e)
	if _, err := st.Apply(nil, nil); err != nil {
		t.Fatal(err)
	}
	lock, err := store.Open(st.Path(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	release, err := lock.HoldWriteLock()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	start := time.Now()
	out, errs, code := runHook(t, e, "PostToolUse", payload(t, "PostToolUse"))
	if code != 0 || !strings.Contains(out, "additionalContext") || !strings.Contains(errs, "spooled") {
		t.Fatalf("code %d out %q err %q", code, out, errs)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Fatalf("hook took %v with a locked store", d)
	}
}

// State that cannot be locked or read makes the nudge fire.
func TestStateErrorNudges(t *testing.T) {
	e := home(t)
	p, _ := paths.Resolve(e.get)
	paths.EnsureDir(p.Data)
	os.WriteFile(p.StateDir(), []byte("a file where the state dir should be"), 0o600)
	out, errs, code := runHook(t, e, "PostToolUse", payload(t, "PostToolUse"))
	if code != 0 || !strings.Contains(out, "additionalContext") {
		t.Fatalf("code %d out %q err %q", code, out, errs)
	}
	if !strings.Contains(errs, "state") {
		t.Errorf("stderr %q does not mention state", errs)
	}
}

// TestStopIndexesTranscript: the Stop hook indexes what is new in the
// session's transcript (a real Claude Code 2.1.330 one), incrementally:
// a second Stop with nothing appended adds nothing, an appended turn is
// added, and no planted secret reaches the store.
func TestStopIndexesTranscript(t *testing.T) {
	e := home(t)
	src, err := os.ReadFile("../../../testdata/transcripts/claude-code-2.1.330.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(t.TempDir(), "session.jsonl")
	os.WriteFile(tr, src, 0o600)
	var stop map[string]any
	json.Unmarshal(payload(t, "Stop"), &stop)
	stop["transcript_path"] = tr
	b, _ := json.Marshal(stop)
	if _, errs, code := runHook(t, e, "Stop", b); code != 0 || errs != "" {
		t.Fatalf("stop: %d %q", code, errs)
	}
	st := openStore(t, e)
	if n, _ := st.ChunkCount(); n != 1 {
		t.Fatalf("%d chunks after the first Stop, want 1", n)
	}
	runHook(t, e, "Stop", b)
	if n, _ := st.ChunkCount(); n != 1 {
		t.Fatalf("%d chunks after a Stop with nothing new, want 1", n)
	}
	f, _ := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"user","timestamp":"2026-11-22T23:00:00Z","sessionId":"s","message":{"role":"user","content":"And the ZEBRA-77 ticket?"}}` + "\n")
	f.Close()
	runHook(t, e, "Stop", b)
	hits, _, err := st.SearchChunks(store.ParseQuery("ZEBRA-77"), store.SearchOptions{})
	if err != nil || len(hits) != 1 {
		t.Fatalf("appended turn: %v %v", hits, err)
	}
	all, _, _ := st.SearchChunks(store.ParseQuery("CVX-5909"), store.SearchOptions{})
	if len(all) != 1 {
		t.Fatalf("first turn: %d hits", len(all))
	}
	for _, s := range []string{"AKIAPLANTEDSECRET123", "planted-db-password-7f3k"} {
		if strings.Contains(all[0].Chunk.Text, s) {
			t.Errorf("planted secret %q in a stored turn", s)
		}
	}
}

// eventsIn counts the events stored under e's home.
func eventsIn(t *testing.T, e env) int64 {
	p, _ := paths.Resolve(e.get)
	st, err := store.Open(p.DB(), store.Options{ReadOnly: true})
	if err != nil {
		return 0
	}
	defer st.Close()
	s, _ := st.Stats("")
	return s.Events
}

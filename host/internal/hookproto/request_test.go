package hookproto_test

import (
	"bytes"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestRequestRoundTrip: a request written as frame fields reads back as
// it was, its deadline in whole milliseconds; an absent or bad deadline
// is the default budget, as in the environment.
func TestRequestRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   hookproto.Request
		want time.Duration
	}{
		{"all", hookproto.Request{Harness: "claude-code", Event: "PostToolUse", ID: "r-1", Deadline: 1500 * time.Millisecond, Late: true,
			Environ: []string{"GITHUB_TOKEN=abcdefgh12", "CTXHOOK_CAPTURE=0"}, Payload: []byte(`{"a":1}`)}, 1500 * time.Millisecond},
		{"no deadline", hookproto.Request{Harness: "codex", Event: "Stop", Payload: []byte("{}")}, hookproto.Default},
		{"under a millisecond", hookproto.Request{Harness: "codex", Event: "Stop", Deadline: time.Microsecond}, time.Millisecond},
		{"past the bound", hookproto.Request{Harness: "codex", Event: "Stop", Deadline: time.Hour}, hookproto.MaxHook},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := hookproto.Write(&buf, tt.in.Fields("build")...); err != nil {
				t.Fatal(err)
			}
			f, err := hookproto.Read(&buf)
			if err != nil {
				t.Fatal(err)
			}
			got, err := hookproto.ParseRequest(f)
			if err != nil || string(f[hookproto.FieldBuild]) != "build" {
				t.Fatalf("%v, build %q", err, f[hookproto.FieldBuild])
			}
			want := tt.in
			want.Deadline = tt.want
			if want.Payload == nil {
				want.Payload = []byte{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestOlderFrameIsNotARequest: the frame a client sent before requests
// had fields of their own (build, harness, event, environment, payload)
// is not taken for one.
func TestOlderFrameIsNotARequest(t *testing.T) {
	old := [][]byte{[]byte("build"), []byte("claude-code"), []byte("PostToolUse"), []byte(hookproto.EnvRequestID + "=x"), []byte("{}")}
	if _, err := hookproto.ParseRequest(old); err == nil {
		t.Fatal("an older client's frame parsed as a request")
	}
}

// TestPluginVarsAreTheABIs: the variables a client sends by name are the
// ones the plugin reads (abi.HandleRequest.Env), and the whole
// environment goes with Claude Code's SessionStart only.
func TestPluginVarsAreTheABIs(t *testing.T) {
	if !slices.Equal(hookproto.PluginVars, []string{abi.EnvNudgeEvery, abi.EnvCapture}) {
		t.Fatalf("PluginVars %v, the plugin reads %v", hookproto.PluginVars, []string{abi.EnvNudgeEvery, abi.EnvCapture})
	}
	if !hookproto.WholeEnviron(abi.HarnessClaudeCode, "SessionStart") || hookproto.WholeEnviron(abi.HarnessClaudeCode, "PostToolUse") {
		t.Fatal("WholeEnviron does not name Claude Code's SessionStart alone")
	}
}

// TestPluginEnviron: a client sends the plugin's variables and the
// entries that may hold a secret, and nothing else (PATH, the request's
// own name, its deadline).
func TestPluginEnviron(t *testing.T) {
	environ := []string{
		"PATH=/usr/bin:/bin", "HOME=/home/u", hookproto.EnvRequestID + "=r-1", hookproto.EnvDeadline + "=900",
		hookproto.EnvLate + "=1", "CTXHOOK_NUDGE_EVERY=3", "CTXHOOK_CAPTURE=off", "CTXHOOK_NUDGE_EVERYX=9",
		"GITHUB_TOKEN=ghp_0123456789", "SHORT_TOKEN=abc", "DB_PASSWORD=hunter2hunter2", "noequals",
	}
	want := []string{"CTXHOOK_NUDGE_EVERY=3", "CTXHOOK_CAPTURE=off", "GITHUB_TOKEN=ghp_0123456789", "DB_PASSWORD=hunter2hunter2"}
	if got := hookproto.PluginEnviron("claude-code", "PostToolUse", environ); !slices.Equal(got, want) {
		t.Fatalf("sent %q\nwant %q", got, want)
	}
	if got := hookproto.PluginEnviron("claude-code", "SessionStart", environ); !slices.Equal(got, environ) {
		t.Fatalf("SessionStart sent %q, want the whole environment", got)
	}
}

// FuzzParseRequest: any frame's fields either parse or are refused,
// never a panic, and a parsed request writes back to the same fields.
func FuzzParseRequest(f *testing.F) {
	f.Add("claude-code", "PostToolUse", "r-1", "1500", "1", "A_TOKEN=abcdefghij\x00CTXHOOK_CAPTURE=0", []byte("{}"))
	f.Add("", "", "", "-5", "", "", []byte(nil))
	f.Add("x", "y", "z", "99999999999999999999", "yes", "\x00\x00", []byte("p"))
	f.Fuzz(func(t *testing.T, harness, event, id, deadline, late, environ string, payload []byte) {
		fields := [][]byte{[]byte("b"), []byte(harness), []byte(event), []byte(id), []byte(deadline), []byte(late), []byte(environ), payload}
		r, err := hookproto.ParseRequest(fields)
		if err != nil {
			t.Fatal(err)
		}
		if r.Deadline <= 0 || r.Deadline > hookproto.MaxHook {
			t.Fatalf("deadline %v from %q", r.Deadline, deadline)
		}
		back, err := hookproto.ParseRequest(r.Fields("b"))
		if err != nil || !reflect.DeepEqual(back, r) {
			t.Fatalf("%v: %+v then %+v", err, r, back)
		}
		if _, err := hookproto.ParseRequest(fields[:len(fields)-1]); err == nil {
			t.Fatal("a frame a field short parsed")
		}
	})
}

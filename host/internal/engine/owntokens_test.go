package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/ownsecrets"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/state"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestOwnTokenOutlivesItsDocument: a relay token ctxhook wrote (through
// `ctxhook io apply`, as any write of a session document) stays redacted
// after a model plants 700 newer session documents and removes the one
// that held it: a Bash `cat` of it, through a hook process's engine and
// a long-lived one, leaves no 12-byte run of it in any file under
// ctxhook's home but the record of own values, and the events were
// captured.
func TestOwnTokenOutlivesItsDocument(t *testing.T) {
	e := home(t)
	e["CTXHOOK_NO_DAEMON"] = "1"
	p, _ := paths.Resolve(e.get)
	const token = "ticket-relay-session-old-0042"
	res := Apply(p, []abi.Effect{{Op: abi.OpSetState, Key: "session/old",
		Value: `{"mcp_calls":1,"tokens":{"tickets":"` + token + `"}}`}}, "")
	if len(res.Warnings) > 0 {
		t.Fatalf("apply: %q", res.Warnings)
	}
	sd, err := state.Open(p.StateDir())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 700 {
		sd.Write(fmt.Sprintf("session/planted-%d", i), `{}`)
	}
	if n, err := sd.Remove([]string{"session/old"}); n != 1 || err != nil {
		t.Fatalf("remove: %d %v", n, err)
	}
	read := func(marker string) []byte {
		b, _ := json.Marshal(map[string]any{"session_id": "reader", "hook_event_name": "PostToolUse", "cwd": "/proj",
			"tool_name": "Bash", "tool_use_id": "toolu_" + marker, "tool_input": map[string]string{"command": "cat ~/old-session.json"},
			"tool_response": map[string]any{"stdout": token + "\n" + marker + "\n", "stderr": "", "interrupted": false, "isImage": false}})
		return b
	}
	if _, errs, code := runHook(t, e, "PostToolUse", read("QZHOOKPROC")); code != 0 {
		t.Fatalf("hook: %d %s", code, errs)
	}
	ctx := context.Background()
	eng, err := NewEngineWith(ctx, p, e.get, runner.Options{NoInterrupt: true}, KeptStore)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Do(ctx, "", "claude-code", "PostToolUse", read("QZLONGLIVED")); err != nil {
		t.Fatal(err)
	}
	eng.Close(ctx)

	var all []byte
	filepath.WalkDir(e["CTXHOOK_HOME"], func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		b, _ := os.ReadFile(path)
		if filepath.Base(path) == ownsecrets.RecordName {
			return nil // where the value lives by design
		}
		all = append(all, b...)
		for i := 0; i+12 <= len(token); i++ {
			if bytes.Contains(b, []byte(token[i:i+12])) {
				t.Errorf("%s holds %q of the token", path, token[i:i+12])
				break
			}
		}
		return nil
	})
	for _, m := range []string{"QZHOOKPROC", "QZLONGLIVED"} {
		if !bytes.Contains(all, []byte(m)) {
			t.Errorf("no file holds %s: the event was not captured", m)
		}
	}
}

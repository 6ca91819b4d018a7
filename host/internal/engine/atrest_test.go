package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/secretcorpus"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestNoSecretAtRest drives the whole secret corpus through real hooks
// (plugin.wasm, a real store, state files, the spool) and then looks for
// every planted secret in the raw bytes of every file ctxhook wrote and
// in what the hooks said on stderr; and for an 8-byte piece of each in
// the full-text indexes.
func TestNoSecretAtRest(t *testing.T) {
	e := home(t)
	p, _ := paths.Resolve(e.get)
	ctx := context.Background()
	planted := append(secretcorpus.Generate(7), secretcorpus.UnderKeys(1000)...)

	// Sensitive environment values: the hook's own environment holds them.
	environ := []string{"PATH=/usr/bin", "HOME=/home/dev"}
	for i, pl := range planted {
		if pl.Known && pl.Kind == "env-value" {
			environ = append(environ, fmt.Sprintf("DEPLOY_%d_TOKEN=%s", i, pl.Secret))
		}
	}
	newEngine := func(deferred bool) *Engine {
		sink := KeptStore
		if deferred {
			sink = Spool
		}
		eng, err := NewEngineWith(ctx, p, e.get, runner.Options{NoInterrupt: true}, sink)
		if err != nil {
			t.Fatal(err)
		}
		eng.Environ = func() []string { return environ }
		t.Cleanup(func() { eng.Close(ctx) })
		return eng
	}
	direct, spooling := newEngine(false), newEngine(true)
	// A reader holds the store open, so the -wal and -shm files stay.
	direct.write(nil, []abi.Effect{{Op: abi.OpTally, Session: "at-rest", Name: "start", Count: 1}}, "")
	keep, err := store.Open(p.DB(), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer keep.Close()
	// server "tickets" relays tokens (config), "notes" does not.
	post := func(eng *Engine, server string, n int, text string) {
		t.Helper()
		resp, _ := json.Marshal([]map[string]string{{"type": "text", "text": text}})
		in, _ := json.Marshal(map[string]any{"session_id": "at-rest", "hook_event_name": "PostToolUse",
			"tool_name": "mcp__" + server + "__get", "tool_use_id": fmt.Sprintf("toolu_%d", n),
			"tool_input": map[string]any{"id": n, "note": text}, "tool_response": json.RawMessage(resp)})
		res, err := eng.Do(ctx, "", "claude-code", "PostToolUse", in)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range res.Warnings {
			for _, pl := range planted {
				if strings.Contains(w, pl.Secret) {
					t.Errorf("a warning holds a %s secret", pl.Kind)
				}
			}
		}
	}
	relayed := map[string]bool{}
	for i, pl := range planted {
		eng := direct
		if i >= len(planted)-50 {
			eng = spooling // the last ones stay in the spool, unreplayed
		}
		server := "notes"
		if pl.Kind == "relay-token" {
			// The server hands the token out first; the relay learns it
			// and redacts it from then on.
			server = "tickets"
			relayed[pl.Secret] = true
			post(direct, server, -i, fmt.Sprintf(`{"session_token": %q}`, pl.Secret))
		}
		post(eng, server, i, pl.Text)
	}

	files := 0
	filepath.WalkDir(p.Data, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		files++
		// The one place a secret rests by design: the relay keeps the
		// session's tokens in its state file (0600) to inject them.
		inState := strings.HasPrefix(path, p.StateDir())
		for _, pl := range planted {
			if bytes.Contains(b, []byte(pl.Secret)) && !(inState && relayed[pl.Secret]) {
				t.Errorf("%s secret in %s", pl.Kind, path)
			}
		}
		return nil
	})
	spooled, _ := filepath.Glob(filepath.Join(p.SpoolDir(), "*.jsonl"))
	wal, _ := os.Stat(p.DB() + "-wal")
	if files < 4 || len(spooled) == 0 || wal == nil || wal.Size() == 0 {
		t.Fatalf("checked %d files, %d spool files, WAL %v: the test did not reach every kind of file", files, len(spooled), wal)
	}

	st, err := store.Open(p.DB(), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if s, _ := st.Stats(""); s.Events < int64(len(planted))*8/10 {
		t.Fatalf("%d events stored for %d hooks", s.Events, len(planted))
	}
	found := 0
	for _, pl := range planted {
		frag := fragment(pl.Secret)
		if frag == "" {
			continue
		}
		hits, err := st.Search(store.ParseQuery(frag), store.SearchOptions{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) > 0 {
			found++
			if found < 5 {
				t.Errorf("search %q (from a %s secret) finds an event", frag, pl.Kind)
			}
		}
	}
	t.Logf("%d hooks, %d files checked (db, -wal, -shm, state, %d spool files): no planted secret; no 8-byte piece of one found by search (%d found)",
		len(planted), files, len(spooled), found)
}

// fragment is 8 alphanumeric bytes from the middle of secret, or "".
func fragment(secret string) string {
	run := 0
	for i := len(secret) / 2; i < len(secret); i++ {
		c := secret[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			if run++; run == 8 {
				return secret[i-7 : i+1]
			}
		} else {
			run = 0
		}
	}
	return ""
}

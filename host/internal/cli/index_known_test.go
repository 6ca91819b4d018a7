package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/state"
)

// TestIndexRedactsEverySessionsTokens: `ctxhook index` reads histories
// that name no session the relay knows, yet their tool calls carry the
// tokens it injected (Copilot's toolRequests arguments, Droid's tool
// calls). Every token a session holds or retired is redacted: no store
// file holds one afterwards.
func TestIndexRedactsEverySessionsTokens(t *testing.T) {
	const held, retired = "handle-alpha-bravo-charlie-4711", "handle-delta-echo-foxtrot-0815"
	e := newEnv(t)
	home := e.vars["HOME"]
	plantHistory(t, home)
	for dst, with := range map[string]string{historyLayout["copilot-1.0.102.jsonl"]: held, historyLayout["droid-0.225.2.jsonl"]: retired} {
		p := filepath.Join(home, dst)
		b, _ := os.ReadFile(p)
		b = bytes.ReplaceAll(b, []byte(`"n":1`), []byte(`"n":1,"run":"`+with+`"`))
		fi, _ := os.Stat(p)
		os.WriteFile(p, b, 0o600)
		os.Chtimes(p, fi.ModTime(), fi.ModTime()) // quiet: its turns are over
	}
	p, err := paths.Resolve(e.get)
	if err != nil {
		t.Fatal(err)
	}
	sd, err := state.Open(p.StateDir())
	if err != nil {
		t.Fatal(err)
	}
	sd.Write("session/earlier", `{"tokens":{"workflow":"`+held+`"},"retired":["`+retired+`"]}`)
	if out, errs, code := e.run(t, nil, "index", "--all"); code != 0 {
		t.Fatalf("index: %d %q %q", code, out, errs)
	}
	var scanned int
	filepath.WalkDir(e.get("CTXHOOK_HOME"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(path, p.StateDir()) {
			return nil
		}
		b, _ := os.ReadFile(path)
		scanned++
		for _, tok := range []string{held, retired} {
			if bytes.Contains(b, []byte(tok)) {
				t.Errorf("%s holds the relay token %s", path, tok)
			}
		}
		return nil
	})
	if scanned == 0 {
		t.Fatal("no store file to scan")
	}
}

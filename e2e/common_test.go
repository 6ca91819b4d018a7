package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/e2e/internal/fakemodel"
	"github.com/ctxhook/ctxhook/internal/homeprocs"
)

// searchFor runs `ctxhook search --json args...` until its output holds
// want, for at most 10 s, and returns the last output. The store is
// written a moment after a call is answered (the daemon's writer, or the
// replay of a spool a proxy that decided in-process left at its exit:
// docs/speed.md), so a search right after a run may not see its last
// calls yet; what the product promises is that it sees them soon.
func searchFor(t *testing.T, env []string, dir, ctxhook, want string, args ...string) (string, string, error) {
	t.Helper()
	var out, errs string
	var err error
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		out, errs, err = run(t, time.Minute, env, dir, nil, ctxhook, append([]string{"search", "--json"}, args...)...)
		if (err == nil && strings.Contains(out, want)) || time.Now().After(end) {
			return out, errs, err
		}
	}
}

// checkCaptured asserts what every harness's run must leave behind: the
// ticket is `ctxhook search`'s first result (by the harness's tool name), the
// nudge reached the model, and the planted secrets are in no file under
// ctxhook's directories in home, though the ticket text is, and no file
// is readable by others.
func checkCaptured(t *testing.T, env []string, dir, ctxhook, home string, model *fakemodel.Server, ticket, tool string) {
	t.Helper()
	out, errs, err := searchFor(t, env, dir, ctxhook, `"tool": "`+tool+`"`, ticket)
	if err != nil {
		t.Fatalf("search: %v %s", err, errs)
	}
	var res struct {
		Results []struct {
			Tool    string `json:"tool"`
			Snippet string `json:"snippet"`
		} `json:"results"`
	}
	json.Unmarshal([]byte(out), &res)
	if hits := res.Results; len(hits) == 0 || hits[0].Tool != tool || !strings.Contains(hits[0].Snippet, ticket) {
		t.Errorf("search %s: the first result is not the %s response: %s", ticket, tool, out)
	}

	checkNudged(t, model)

	checkSecrets(t, ctxhookFiles(t, home))
}

// checkSecrets: the planted secrets are in none of files, the ticket text
// is in one of them (else the check proves nothing), and none is readable
// by group or others.
func checkSecrets(t *testing.T, files []string) {
	t.Helper()
	stored := false
	for f, b := range readFiles(t, files) {
		for _, s := range planted {
			if strings.Contains(string(b), s) {
				t.Errorf("planted secret %q found in %s", s, f)
			}
		}
		stored = stored || strings.Contains(string(b), "retryPolicyForGateway")
		if fi, err := os.Stat(f); err == nil && fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s is %v, want no group/other access", f, fi.Mode().Perm())
		}
	}
	if !stored {
		t.Errorf("the ticket text is in none of %d files: the secret check proved nothing", len(files))
	}
}

// readFiles yields each of files with its content. A file gone since it
// was listed is left out: a spool file the writer has just stored (into
// the store, which is among the files too) and removed.
func readFiles(t *testing.T, files []string) iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if !yield(f, b) {
				return
			}
		}
	}
}

// ctxhookFiles is every file ctxhook wrote under home: its state and
// config directories.
//
// The state directory's bin/ is left out: it holds the copies of ctxhook
// install makes when it runs from a temporary directory (as the tests'
// build does), and the program embeds the demo recording, planted
// secrets and all. What ctxhook wrote of a session is the rest.
func ctxhookFiles(t *testing.T, home string) []string {
	state := filepath.Join(home, ".local", "state", "ctxhook")
	var files []string
	for _, f := range filesUnder(t, state) {
		if !strings.HasPrefix(f, filepath.Join(state, "bin")+string(filepath.Separator)) {
			files = append(files, f)
		}
	}
	return append(files, filesUnder(t, filepath.Join(home, ".config", "ctxhook"))...)
}

// chatToolArgs returns the arguments of every call of tool in a Chat
// Completions request (OpenCode, Kilo CLI, Droid): for
// checkModelNeverSentToken.
func chatToolArgs(tool string) func(body []byte) []string {
	return func(body []byte) []string {
		var req struct {
			Messages []struct {
				ToolCalls []struct {
					Function struct{ Name, Arguments string } `json:"function"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		json.Unmarshal(body, &req)
		var out []string
		for _, m := range req.Messages {
			for _, c := range m.ToolCalls {
				if c.Function.Name == tool {
					out = append(out, c.Function.Arguments)
				}
			}
		}
		return out
	}
}

// relayWorkflow writes ctxhook's config under home: the workflow
// server's token is relayed.
func relayWorkflow(home string) {
	os.MkdirAll(filepath.Join(home, ".config", "ctxhook"), 0o700)
	os.WriteFile(filepath.Join(home, ".config", "ctxhook", "config.toml"), []byte("[servers.workflow]\nrelay = true\n"), 0o600)
}

// installHarness wires ctxhook in as a user would: the relay on for the
// workflow server, `ctxhook install <harness> [args]`, whose output must
// name want, then `ctxhook doctor <harness>`, which must pass.
func installHarness(t *testing.T, env []string, project, ctxhook, home, harness, want string, args ...string) {
	t.Helper()
	relayWorkflow(home)
	out, errs, err := run(t, time.Minute, env, project, nil, ctxhook, append([]string{"install", harness}, args...)...)
	if err != nil || !strings.Contains(out, want) {
		t.Fatalf("ctxhook install %s: %v\n%s%s", harness, err, out, errs)
	}
	if out, _, err := run(t, time.Minute, env, project, nil, ctxhook, "doctor", harness); err != nil {
		t.Fatalf("doctor %s: %v\n%s", harness, err, out)
	}
}

// checkModelNeverSentToken fails if any request body shows the model
// passing session_token in its own tool-call arguments. args extracts the
// argument strings of the model's tool calls from one request body.
func checkModelNeverSentToken(t *testing.T, model *fakemodel.Server, args func(body []byte) []string) {
	t.Helper()
	n := 0
	for _, req := range model.Requests() {
		for _, a := range args(req) {
			n++
			if strings.Contains(a, "session_token") {
				t.Errorf("the model's own call carried a token: %s", a)
			}
		}
	}
	if n == 0 {
		t.Errorf("no model tool call seen in the requests: the check proved nothing")
	}
}

// keepTranscripts copies a client's session transcripts to
// CTXHOOK_E2E_KEEP, when set, for looking at after the run.
func keepTranscripts(t *testing.T, dir string) {
	keep := os.Getenv("CTXHOOK_E2E_KEEP")
	if keep == "" {
		return
	}
	for _, f := range filesUnder(t, dir) {
		if strings.HasSuffix(f, ".jsonl") {
			b, _ := os.ReadFile(f)
			os.WriteFile(filepath.Join(keep, t.Name()+".transcript."+filepath.Base(f)), b, 0o644)
		}
	}
}

// clientRun is the set-up every real-client test shares: a temp dir with
// an empty home and project, the MCP servers' log, and a fake model serving
// the script (closed when the test ends; logs kept with CTXHOOK_E2E_KEEP).
type clientRun struct {
	Tmp, Home, Project, MCPLog string
	Model                      *fakemodel.Server
}

func newClientRun(t *testing.T, script []fakemodel.Step) *clientRun {
	t.Helper()
	tmp := t.TempDir()
	r := &clientRun{Tmp: tmp, Home: filepath.Join(tmp, "home"), Project: filepath.Join(tmp, "project"),
		MCPLog: filepath.Join(tmp, "mcp.log.jsonl")}
	for _, d := range []string{r.Home, r.Project} {
		os.MkdirAll(d, 0o755)
	}
	// Before the directory goes (cleanups run last first): what still
	// runs in this home, a client's hub or a ctxhook daemon idling out,
	// must not write into it while it is removed.
	t.Cleanup(func() { homeprocs.KillWith("HOME", r.Home) })
	model, err := fakemodel.Start(script, "FINAL_ANSWER: workflow finished.")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	r.Model = model
	keepLogs(t, model, &r.MCPLog)
	return r
}

// bigMiB is the size of the export_log result the big-result tests ask
// for: past Claude Code's overflow threshold and Codex's hook payloads as
// users see them.
const bigMiB = 10

// bigScript asks the tickets server for a bigMiB export_log.
func bigScript() []fakemodel.Step {
	return []fakemodel.Step{{Tool: "mcp__tickets__export_log", Input: map[string]any{"id": "CVX-5909", "mib": bigMiB}}}
}

// checkBigSearchable: the export_log result is found by its last line
// (one event; a transcript chunk may hold the tail the client showed)
// within a few seconds of the client's exit, the hit's offset lies in its
// last KiB (the whole body was stored, not a stub or a cut), it was
// stored once, and the key planted in its middle is in no file ctxhook
// wrote.
func checkBigSearchable(t *testing.T, env []string, dir, ctxhook, home string) {
	t.Helper()
	start := time.Now()
	out, _, _ := searchFor(t, env, dir, ctxhook, "export_log", "ZQLASTMARK")
	type hit struct {
		Kind   string `json:"kind"`
		Tool   string `json:"tool"`
		Offset int    `json:"offset"`
	}
	var all struct {
		Results []hit `json:"results"`
	}
	var hits []hit
	json.Unmarshal([]byte(out), &all)
	for _, h := range all.Results {
		if h.Kind == "event" { // a transcript may quote the log's tail too
			hits = append(hits, h)
		}
	}
	if len(hits) != 1 || !strings.HasSuffix(hits[0].Tool, "export_log") || hits[0].Offset < bigMiB<<20-1024 {
		t.Fatalf("search ZQLASTMARK after %v: want one export_log hit in the last KiB of %d MiB: %s", time.Since(start), bigMiB, out)
	}
	t.Logf("the %d MiB result's last line searchable %v after the client exited", bigMiB, time.Since(start).Round(time.Millisecond))
	for f, b := range readFiles(t, ctxhookFiles(t, home)) {
		if bytes.Contains(b, []byte(planted[0])) {
			t.Errorf("planted secret %q found in %s", planted[0], f)
		}
	}
}

// checkNudged: some request to the model carried the nudge.
func checkNudged(t *testing.T, model *fakemodel.Server) {
	t.Helper()
	for _, req := range model.Requests() {
		if strings.Contains(string(req), nudgeMarker) {
			return
		}
	}
	t.Errorf("no request to the model carried the nudge")
}

// checkShaped: the 12-20 KB ticket responses reached the model shaped,
// as a head and a pointer, and the fact past the head never did.
func checkShaped(t *testing.T, model *fakemodel.Server) {
	t.Helper()
	shaped := false
	for _, req := range model.Requests() {
		shaped = shaped || strings.Contains(string(req), "to save context. The full response is stored as event e")
		if strings.Contains(string(req), "FACT CVX-5909") {
			t.Errorf("the model received the ticket past its head: shaping did not reach it")
		}
	}
	if !shaped {
		t.Errorf("no request to the model carried a shaped response")
	}
}

// Package conformance reads ctxhook's conformance corpus: txtar files under
// testdata/conformance/<harness>/<event>/<case>.txtar, each pinning what the
// plugin must answer for one hook call. Every host runs the same corpus
// (the Go host in plugin/conformance_test.go, the JS loader in its own
// tests), so a host that drifts fails.
//
// A case's comment (the text before the first file) says in prose what
// behaviour it pins. Input files:
//
//	payload.json   the harness payload, exactly as the harness sends it
//	config.json    abi.Config (optional)
//	env            KEY=VALUE lines (optional)
//	state.json     state before: {"<key>": "<value>"} (optional)
//	state_error    present when the host could not read state (optional)
//	files.json     the files the host read for the plugin: [{"path": ...,
//	               "content": ...} or {"path": ..., "error": ...}] (optional)
//	hook_server    HandleRequest.HookServer: why the mcp_tool hooks will
//	               not be answered (optional)
//
// Expected files (written by `go test ./plugin -update`, then reviewed):
//
//	stdout         the exact hook stdout
//	exit_code      the exit code
//	effects.json   the effects, indented JSON
//	error          instead of the three above: the plugin must fail, with
//	               this text in its error (the host then fails open)
package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"golang.org/x/tools/txtar"
)

// NowMS is the clock every case runs at.
const NowMS = 1764000000000

// Case is one corpus entry.
type Case struct {
	Path    string // file path
	Name    string // harness/event/case
	Harness string
	Event   string
	Comment string
	Request abi.HandleRequest
	Files   map[string][]byte
	archive *txtar.Archive
}

// Load reads every case under root (testdata/conformance).
func Load(root string) ([]*Case, error) {
	var out []*Case
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".txtar") {
			return err
		}
		c, err := Read(root, path)
		if err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// Read parses one case.
func Read(root, path string) (*Case, error) {
	a, err := txtar.ParseFile(path)
	if err != nil {
		return nil, err
	}
	rel, _ := filepath.Rel(root, path)
	parts := strings.Split(filepath.ToSlash(strings.TrimSuffix(rel, ".txtar")), "/")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%s: want <harness>/<event>/<case>.txtar", path)
	}
	c := &Case{Path: path, Name: strings.Join(parts, "/"), Harness: parts[0], Event: parts[1],
		Comment: string(a.Comment), Files: map[string][]byte{}, archive: a}
	for _, f := range a.Files {
		c.Files[f.Name] = f.Data
	}
	if strings.TrimSpace(c.Comment) == "" {
		return nil, fmt.Errorf("%s: a case needs a prose header saying what it pins", path)
	}
	payload, ok := c.Files["payload.json"]
	if !ok {
		return nil, fmt.Errorf("%s: no payload.json", path)
	}
	req := abi.HandleRequest{Harness: c.Harness, Event: c.Event, Payload: string(payload), NowMS: NowMS}
	if b, ok := c.Files["config.json"]; ok {
		if err := json.Unmarshal(b, &req.Config); err != nil {
			return nil, fmt.Errorf("%s: config.json: %w", path, err)
		}
	}
	if b, ok := c.Files["state.json"]; ok {
		if err := json.Unmarshal(b, &req.State); err != nil {
			return nil, fmt.Errorf("%s: state.json: %w", path, err)
		}
	}
	if b, ok := c.Files["files.json"]; ok {
		if err := json.Unmarshal(b, &req.Files); err != nil {
			return nil, fmt.Errorf("%s: files.json: %w", path, err)
		}
		for i := range req.Files {
			req.Files[i].Bytes = len(req.Files[i].Content)
		}
	}
	if b, ok := c.Files["state_error"]; ok {
		req.StateError = strings.TrimSpace(string(b))
		if req.StateError == "" {
			req.StateError = "state unreadable"
		}
	}
	if b, ok := c.Files["hook_server"]; ok {
		req.HookServer = strings.TrimSpace(string(b))
	}
	if b, ok := c.Files["env"]; ok {
		req.Env = map[string]string{}
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				req.Env[k] = v
			}
		}
	}
	c.Request = req
	return c, nil
}

// Outcome is what a host got for a case.
type Outcome struct {
	Response abi.HandleResponse
	Err      error
}

// Check compares an outcome with the case's expected files and returns a
// description of every difference.
func (c *Case) Check(o Outcome) []string {
	var diffs []string
	if want, ok := c.Files["error"]; ok {
		if o.Err == nil {
			return []string{fmt.Sprintf("want an error containing %q, got success", strings.TrimSpace(string(want)))}
		}
		if !strings.Contains(o.Err.Error(), strings.TrimSpace(string(want))) {
			diffs = append(diffs, fmt.Sprintf("error %q does not contain %q", o.Err, strings.TrimSpace(string(want))))
		}
		return diffs
	}
	if o.Err != nil {
		return []string{fmt.Sprintf("unexpected error: %v", o.Err)}
	}
	exp := Expected(o.Response)
	for _, name := range []string{"stdout", "exit_code", "effects.json"} {
		if !bytes.Equal(c.Files[name], exp[name]) {
			diffs = append(diffs, fmt.Sprintf("%s:\n--- want\n%s\n--- got\n%s", name, c.Files[name], exp[name]))
		}
	}
	return diffs
}

// Expected renders a response as the case's expected files.
func Expected(r abi.HandleResponse) map[string][]byte {
	effects, _ := json.MarshalIndent(r.Effects, "", "  ")
	return map[string][]byte{
		"stdout":       []byte(r.Stdout),
		"exit_code":    []byte(strconv.Itoa(r.ExitCode) + "\n"),
		"effects.json": append(effects, '\n'),
	}
}

// Update rewrites the case's expected files from an outcome.
func (c *Case) Update(o Outcome) error {
	keep := c.archive.Files[:0:0]
	for _, f := range c.archive.Files {
		switch f.Name {
		case "stdout", "exit_code", "effects.json":
			continue
		case "error":
			if o.Err != nil {
				keep = append(keep, f)
			}
			continue
		}
		keep = append(keep, f)
	}
	if o.Err == nil {
		exp := Expected(o.Response)
		for _, name := range []string{"stdout", "exit_code", "effects.json"} {
			keep = append(keep, txtar.File{Name: name, Data: exp[name]})
		}
	} else if _, ok := c.Files["error"]; !ok {
		keep = append(keep, txtar.File{Name: "error", Data: []byte(o.Err.Error() + "\n")})
	}
	c.archive.Files = keep
	return os.WriteFile(c.Path, txtar.Format(c.archive), 0o644)
}

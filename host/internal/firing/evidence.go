package firing

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Session is what a harness's transcript says of one session: its MCP
// tool calls (how many, the last one's time) and the client's version.
type Session struct {
	ID       string    `json:"id"`
	Calls    int       `json:"mcp_calls"`
	LastCall time.Time `json:"last_call"`
	Version  string    `json:"client_version,omitempty"`
	File     string    `json:"transcript"`
	seen     map[string]bool
}

// Bounds of a transcript scan: doctor reads recent sessions only.
const (
	maxFiles  = 64
	maxAge    = 30 * 24 * time.Hour
	maxLine   = 16 << 20
	lineProbe = `"mcp__`
	maxRead   = 256 << 20 // of one transcript
)

// reader reads one harness's transcripts.
type reader struct {
	globs func(getenv func(string) string) []string
	line  func(l []byte, s *Session)
}

// readers are the harnesses whose transcripts ctxhook can read.
var readers = map[string]reader{
	"claude-code": {claudeGlobs, claudeLine},
	"codex":       {codexGlobs, codexLine},
}

// CanRead reports whether doctor can look for silent hooks of harness.
func CanRead(harness string) bool { _, ok := readers[harness]; return ok }

func home(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	return getenv("USERPROFILE")
}

func claudeGlobs(getenv func(string) string) []string {
	dir := getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		dir = filepath.Join(home(getenv), ".claude")
	}
	return []string{filepath.Join(dir, "projects", "*", "*.jsonl")}
}

func codexGlobs(getenv func(string) string) []string {
	dir := getenv("CODEX_HOME")
	if dir == "" {
		dir = filepath.Join(home(getenv), ".codex")
	}
	return []string{filepath.Join(dir, "sessions", "*", "*", "*", "rollout-*.jsonl")}
}

// Sessions reads the recent transcripts of harness (the newest maxFiles
// changed within maxAge of now) and returns the sessions that called MCP
// tools, the latest call first.
func Sessions(harness string, getenv func(string) string, now time.Time) []Session {
	r, ok := readers[harness]
	if !ok {
		return nil
	}
	type cand struct {
		path string
		mod  time.Time
	}
	var files []cand
	for _, g := range r.globs(getenv) {
		m, _ := filepath.Glob(g)
		for _, p := range m {
			if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) < maxAge {
				files = append(files, cand{p, fi.ModTime()})
			}
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.After(files[j].mod) })
	var out []Session
	for _, f := range files[:min(len(files), maxFiles)] {
		if s := readSession(f.path, r.line); s.Calls > 0 {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].LastCall.After(out[j].LastCall) })
	return out
}

// readSession reads one transcript file, line by line.
func readSession(path string, line func([]byte, *Session)) Session {
	s := Session{File: path, ID: strings.TrimSuffix(filepath.Base(path), ".jsonl")}
	f, err := openMine(path)
	if err != nil {
		return s
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxRead))
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		line(sc.Bytes(), &s)
	}
	return s
}

// claudeLine: a Claude Code transcript line; an assistant message whose
// content holds tool_use items named mcp__server__tool is a call.
func claudeLine(l []byte, s *Session) {
	if s.Version == "" || s.ID == "" {
		var head struct {
			Version   string `json:"version"`
			SessionID string `json:"sessionId"`
		}
		if bytes.Contains(l, []byte(`"version"`)) && json.Unmarshal(l, &head) == nil {
			s.Version = firstOf(s.Version, head.Version)
		}
	}
	if !bytes.Contains(l, []byte(lineProbe)) {
		return
	}
	var m struct {
		Type      string    `json:"type"`
		Timestamp time.Time `json:"timestamp"`
		SessionID string    `json:"sessionId"`
		Message   struct {
			Content []struct {
				Type string `json:"type"`
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"content"`
		} `json:"message"`
	}
	// Only the assistant's own lines: Claude Code also writes copies of
	// the conversation (api-request-blob), and a call may be written
	// twice (counted once, by its id).
	if json.Unmarshal(l, &m) != nil || m.Type != "assistant" {
		return
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	for _, c := range m.Message.Content {
		if c.Type == "tool_use" && strings.HasPrefix(c.Name, "mcp__") && !s.seen[c.ID] {
			s.seen[c.ID] = true
			s.Calls++
			s.ID = firstOf(m.SessionID, s.ID)
			if m.Timestamp.After(s.LastCall) {
				s.LastCall = m.Timestamp
			}
		}
	}
}

// codexLine: a Codex CLI rollout line; session_meta names the session and
// the client's version, a function_call in an mcp__ namespace is a call.
func codexLine(l []byte, s *Session) {
	isMeta := bytes.Contains(l, []byte(`"session_meta"`))
	if !isMeta && !bytes.Contains(l, []byte(lineProbe)) {
		return
	}
	var m struct {
		Timestamp time.Time `json:"timestamp"`
		Type      string    `json:"type"`
		Payload   struct {
			Type       string `json:"type"`
			ID         string `json:"id"`
			CLIVersion string `json:"cli_version"`
			Name       string `json:"name"`
			Namespace  string `json:"namespace"`
		} `json:"payload"`
	}
	if json.Unmarshal(l, &m) != nil {
		return
	}
	switch {
	case m.Type == "session_meta":
		s.ID, s.Version = firstOf(m.Payload.ID, s.ID), firstOf(m.Payload.CLIVersion, s.Version)
	case m.Type == "response_item" && m.Payload.Type == "function_call" &&
		(strings.HasPrefix(m.Payload.Namespace, "mcp__") || strings.HasPrefix(m.Payload.Name, "mcp__")):
		s.Calls++
		if m.Timestamp.After(s.LastCall) {
			s.LastCall = m.Timestamp
		}
	}
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

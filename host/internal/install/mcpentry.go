package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// ServerName is the name ctxhook's own MCP server is installed under. The
// plugin knows it too: its tools are never nudged or shaped.
const ServerName = "ctxhook"

// MCPEntry is where a harness keeps MCP servers and how it writes one.
type MCPEntry struct {
	Path string
	// Keys lead to the servers object ("mcpServers", or "mcp" for OpenCode).
	Keys []string
	// Entry builds ctxhook's entry for the binary exe.
	Entry func(exe string) any
}

// isOurMCP reports whether a server entry runs `ctxhook mcp`.
func isOurMCP(raw json.RawMessage, exe string) bool {
	var e struct {
		Command json.RawMessage `json:"command"`
		Args    []string        `json:"args"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return false
	}
	var argv []string
	var cmd string
	if json.Unmarshal(e.Command, &cmd) == nil {
		argv = append([]string{cmd}, e.Args...)
	} else if json.Unmarshal(e.Command, &argv) != nil {
		return false
	}
	if len(argv) != 2 || argv[1] != "mcp" {
		return false
	}
	return argv[0] == exe || argv[0] == "ctxhook" || strings.HasSuffix(argv[0], "/ctxhook")
}

// PlanMCPEntry adds (add=true) or removes ctxhook's MCP server in a JSON
// config. An entry named "ctxhook" that is not ctxhook's is never touched;
// note says so.
func PlanMCPEntry(m MCPEntry, exe string, add bool) (p Plan, note string, err error) {
	p = Plan{Path: m.Path}
	before, root, err := loadJSON(m.Path)
	if err != nil {
		return p, "", err
	}
	p.Before, p.After = before, before
	chain := []*object{root}
	for _, k := range m.Keys {
		o := newObject()
		if raw, ok := chain[len(chain)-1].get(k); ok {
			if o, err = parseObject(raw); err != nil {
				return p, "", fmt.Errorf("install: %s: %s is not an object; nothing was changed", m.Path, strings.Join(m.Keys, "."))
			}
		} else if !add {
			return p, "", nil
		}
		chain = append(chain, o)
	}
	servers := chain[len(chain)-1]
	raw, exists := servers.get(ServerName)
	ours := exists && isOurMCP(raw, exe)
	switch {
	case add && exists && !ours:
		return p, fmt.Sprintf("%s already has an MCP server named %q that is not ctxhook's; left as it is", m.Path, ServerName), nil
	case add:
		want := mustRaw(m.Entry(exe))
		if exists && bytes.Equal(compactJSON(raw), compactJSON(want)) {
			return p, "", nil
		}
		servers.set(ServerName, want)
	case !ours:
		return p, "", nil
	default:
		servers.del(ServerName)
	}
	for i := len(m.Keys) - 1; i >= 0; i-- {
		if !add && chain[i+1].len() == 0 && slices.Equal(m.Keys, m.Keys[:i+1]) {
			chain[i].del(m.Keys[i])
			continue
		}
		chain[i].set(m.Keys[i], chain[i+1].raw())
	}
	if p.After, err = root.pretty(p.Before); err != nil {
		return p, "", err
	}
	if p.Before == nil && !add {
		p.After = nil
	}
	p.Changed = !bytes.Equal(p.Before, p.After)
	if add {
		p.Added = 1
	} else {
		p.Removed = 1
	}
	return p, "", nil
}

func compactJSON(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// codexMCPMark ends the lines of the table ctxhook adds to Codex's
// config.toml (distinct from the [features] mark, so each plan takes back
// only its own lines).
const codexMCPMark = "# ctxhook's MCP server, added by ctxhook install"

// codexMCPHeader starts that table.
const codexMCPHeader = "[mcp_servers.ctxhook] " + codexMCPMark

// PlanTOMLMCP adds or removes ctxhook's MCP server in Codex's
// config.toml, as lines marked like the [features] ones. A table of the
// user's named ctxhook is left alone.
func PlanTOMLMCP(path, exe string, add bool) (Plan, string, error) {
	p := Plan{Path: path}
	before, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return p, "", fmt.Errorf("install: %w", err)
	}
	if err == nil {
		p.Before = before
	}
	text := string(before)
	var lines []string
	if text != "" {
		lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	for _, l := range lines {
		if tableName(strings.TrimSpace(l)) == "mcp_servers.ctxhook" && !strings.Contains(l, codexMCPMark) {
			p.After = p.Before
			if add {
				return p, fmt.Sprintf("%s already has [mcp_servers.ctxhook] of your own; left as it is", path), nil
			}
			return p, "", nil
		}
	}
	// Drop our table: its header and the marked lines after it.
	var kept []string
	for i := 0; i < len(lines); i++ {
		if lines[i] == codexMCPHeader {
			if len(kept) > 0 && kept[len(kept)-1] == "" {
				kept = kept[:len(kept)-1]
			}
			for i+1 < len(lines) && strings.HasSuffix(lines[i+1], codexMCPMark) {
				i++
			}
			continue
		}
		kept = append(kept, lines[i])
	}
	if add {
		if len(kept) > 0 && strings.TrimSpace(kept[len(kept)-1]) != "" {
			kept = append(kept, "")
		}
		q, _ := json.Marshal(exe) // a TOML basic string is a JSON string
		kept = append(kept, codexMCPHeader, "command = "+string(q)+" "+codexMCPMark, `args = ["mcp"] `+codexMCPMark)
	}
	after := strings.Join(kept, "\n")
	if len(kept) > 0 {
		after += "\n"
	}
	p.After = []byte(after)
	if p.Before == nil && len(kept) == 0 {
		p.After = nil
	}
	p.Changed = !bytes.Equal(p.Before, p.After)
	return p, "", nil
}

// MCPServer is an MCP server entry as a harness's JSON config lists it.
type MCPServer struct {
	Command string
	Args    []string
	Env     map[string]string
	// Ours: the entry runs `ctxhook mcp` (isOurMCP).
	Ours bool
}

// ReadMCPServer returns the server named ServerName in the config m
// names; found is false when the file or the entry is not there. exe is
// this ctxhook binary (an entry naming it is ctxhook's whatever its name).
func ReadMCPServer(m MCPEntry, exe string) (s MCPServer, found bool, err error) {
	b, err := os.ReadFile(m.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, false, nil
	}
	if err != nil {
		return s, false, err
	}
	var node json.RawMessage = b
	for _, k := range append(append([]string(nil), m.Keys...), ServerName) {
		var o map[string]json.RawMessage
		if err := json.Unmarshal(node, &o); err != nil {
			return s, false, fmt.Errorf("%s: %v", m.Path, err)
		}
		if node = o[k]; node == nil {
			return s, false, nil
		}
	}
	var e struct {
		Command json.RawMessage   `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	if err := json.Unmarshal(node, &e); err != nil {
		return s, true, fmt.Errorf("%s: the %s entry: %v", m.Path, ServerName, err)
	}
	var argv []string
	if json.Unmarshal(e.Command, &s.Command) == nil {
		argv = append([]string{s.Command}, e.Args...)
	} else if json.Unmarshal(e.Command, &argv) == nil && len(argv) > 0 {
		s.Command = argv[0]
	}
	if len(argv) > 0 {
		s.Args = argv[1:]
	}
	s.Env, s.Ours = e.Env, isOurMCP(node, exe)
	if s.Command == "" {
		return s, true, fmt.Errorf("%s: the %s entry names no command", m.Path, ServerName)
	}
	return s, true, nil
}

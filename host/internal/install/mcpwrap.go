package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
)

// MCPTarget is one mcpServers object inside a harness's config file.
type MCPTarget struct {
	Path string   // the file
	Keys []string // the JSON path to the mcpServers object
}

// WrapResult says what WrapMCP did to one target.
type WrapResult struct {
	Plan    Plan
	Changed []string          // servers wrapped (or unwrapped)
	Skipped map[string]string // server -> why not
}

// WrapMCP rewrites stdio MCP servers of a target to run through
// `ctxhook proxy` (wrap=true), or restores them (wrap=false). names limits
// it to those servers (all stdio servers when empty). exe is the ctxhook
// binary. The original command and arguments are kept after "--", so
// unwrapping restores them exactly.
func WrapMCP(t MCPTarget, exe string, names []string, wrap bool) (WrapResult, error) {
	res := WrapResult{Plan: Plan{Path: t.Path}, Skipped: map[string]string{}}
	before, err := os.ReadFile(t.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("install: %w", err)
	}
	res.Plan.Before = before
	root, err := parseObject(before)
	if err != nil {
		return res, fmt.Errorf("install: %s is not valid JSON (%v); nothing was changed", t.Path, err)
	}
	// Walk down to the mcpServers object, remembering the parents.
	chain := []*object{root}
	for _, k := range t.Keys {
		raw, ok := chain[len(chain)-1].get(k)
		if !ok {
			return res, nil // no servers here
		}
		o, err := parseObject(raw)
		if err != nil {
			return res, fmt.Errorf("install: %s: %s is not an object; nothing was changed", t.Path, strings.Join(t.Keys, "."))
		}
		chain = append(chain, o)
	}
	servers := chain[len(chain)-1]
	for _, name := range servers.keys {
		if len(names) > 0 && !slices.Contains(names, name) {
			continue
		}
		if isOurMCP(servers.vals[name], exe) {
			if len(names) > 0 {
				res.Skipped[name] = "ctxhook's own MCP server"
			}
			continue
		}
		entry, why := rewrapped(servers.vals[name], name, exe, wrap)
		if why != "" {
			res.Skipped[name] = why
		}
		if entry == nil {
			continue
		}
		servers.set(name, entry.raw())
		res.Changed = append(res.Changed, name)
	}
	if len(res.Changed) == 0 {
		return res, nil
	}
	for i := len(t.Keys) - 1; i >= 0; i-- {
		chain[i].set(t.Keys[i], chain[i+1].raw())
	}
	after, err := root.pretty(before)
	if err != nil {
		return res, err
	}
	res.Plan.After = after
	res.Plan.Changed = !bytes.Equal(before, after)
	return res, nil
}

// rewrapped is a server entry run through the proxy (wrap) or as it was
// before; nil when it is to be left as it is, and why when the user
// should hear it.
func rewrapped(raw json.RawMessage, name, exe string, wrap bool) (*object, string) {
	entry, err := parseObject(raw)
	if err != nil {
		return nil, "not an object"
	}
	var cmd string
	var args []string
	json.Unmarshal(entry.vals["command"], &cmd)
	json.Unmarshal(entry.vals["args"], &args)
	wrapped := IsProxyCommand(cmd, args, exe)
	switch {
	case wrap && wrapped:
		return nil, "already wrapped"
	case !wrap && !wrapped:
		return nil, ""
	case wrap && (cmd == "" || entry.vals["url"] != nil):
		return nil, "not a stdio server (the proxy speaks stdio only for now)"
	}
	if wrap {
		entry.set("command", mustRaw(exe))
		entry.set("args", mustRaw(append([]string{"proxy", "--name", name, "--", cmd}, args...)))
		return entry, ""
	}
	orig := args[slices.Index(args, "--")+1:]
	entry.set("command", mustRaw(orig[0]))
	if len(orig) > 1 {
		entry.set("args", mustRaw(orig[1:]))
	} else {
		entry.del("args") // it had none: wrapping added the key
	}
	return entry, ""
}

// IsProxyCommand reports whether an MCP server entry runs `ctxhook proxy`.
func IsProxyCommand(cmd string, args []string, exe string) bool {
	named := cmd == exe || cmd == "ctxhook" || strings.HasSuffix(cmd, "/ctxhook")
	return named && len(args) >= 5 && args[0] == "proxy" && slices.Contains(args, "--") &&
		slices.Index(args, "--") < len(args)-1
}

const proxyMark = "proxy = true  # added by ctxhook install --wrap-mcp"

// MarkProxied adds (mark=true) or removes the `proxy = true` line that tells
// ctxhook's hooks a server is recorded by the proxy, in config.toml text.
// Only lines ctxhook added are ever removed.
func MarkProxied(configText string, servers []string, mark bool) string {
	for _, name := range servers {
		header := "[servers." + tomlKey(name) + "]"
		if !mark {
			configText = strings.Replace(configText, header+"\n"+proxyMark+"\n", header+"\n", 1)
			continue
		}
		if strings.Contains(configText, header+"\n"+proxyMark+"\n") {
			continue
		}
		if i := strings.Index(configText, header+"\n"); i >= 0 {
			at := i + len(header) + 1
			configText = configText[:at] + proxyMark + "\n" + configText[at:]
		} else {
			if configText != "" && !strings.HasSuffix(configText, "\n") {
				configText += "\n"
			}
			configText += "\n" + header + "\n" + proxyMark + "\n"
		}
	}
	return configText
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func tomlKey(k string) string {
	if bareKey.MatchString(k) {
		return k
	}
	b, _ := json.Marshal(k)
	return string(b)
}

// Package hookhealth tells whether Claude Code's mcp_tool hooks, as
// `ctxhook install claude-code --hook-type mcp_tool` wrote them, will be
// answered. When ctxhook's MCP server is not listed, cannot start, or
// refuses the hooks (no secret, or another one), Claude Code skips each
// hook and the calls go on without ctxhook: no relay, nothing recorded,
// and nothing says so. SessionStart (still a command hook) and doctor
// check it, so that the user hears it.
package hookhealth

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
	"github.com/ctxhook/ctxhook/host/internal/install"
	"github.com/ctxhook/ctxhook/host/internal/mcpprobe"
	"github.com/ctxhook/ctxhook/host/internal/paths"
)

// Report is what was found for one scope's settings.
type Report struct {
	// Settings is the settings file checked; Hooks is how many of
	// ctxhook's mcp_tool hooks it holds (0: nothing else was checked).
	Settings string
	Hooks    int
	// MCPConfig is where ctxhook's MCP server should be listed.
	MCPConfig string
	// Missing: Config does not list a server named ctxhook. Foreign:
	// the one it lists is not ctxhook's (its command is Command).
	Missing, Foreign bool
	Command          string
	// Start is why the listed server does not start and answer (nil:
	// it does); Secret why it would refuse the hooks (nil: it would not).
	Start, Secret error
	// Config is why ctxhook's config.toml is refused: the hooks then
	// decide with the defaults (no token relay), and an mcp_tool hook's
	// warning reaches only the server's stderr.
	Config error
}

// Check looks at the mcp_tool hooks of one scope's Claude Code settings
// ("user" or "project", dir the project), and when there are any, runs
// the listed server once (environ is the environment to run it in; exe
// is this ctxhook binary, which an entry may name by any name).
func Check(ctx context.Context, getenv func(string) string, environ []string, p paths.Paths, scope, dir, exe string) Report {
	var r Report
	path, err := install.Claude.HooksPath(scope, getenv, dir)
	if err != nil {
		return r
	}
	r.Settings = path
	secrets, err := install.MCPToolSecrets(path)
	if r.Hooks = len(secrets); err != nil || r.Hooks == 0 {
		return r
	}
	r.Secret = checkSecret(secrets, p.Data)
	if _, err := config.Load(p.Config); err != nil {
		r.Config = err
	}
	m, ok := install.MCPEntryFor(install.Claude, scope, getenv, dir)
	if !ok {
		return r
	}
	r.MCPConfig = m.Path
	srv, found, err := install.ReadMCPServer(m, exe)
	switch {
	case !found:
		r.Missing = true
		return r
	case err != nil:
		r.Start = err
		return r
	}
	r.Command = strings.TrimSpace(srv.Command + " " + strings.Join(srv.Args, " "))
	if r.Foreign = !srv.Ours; r.Foreign {
		return r
	}
	env := append([]string(nil), environ...)
	for k, v := range srv.Env {
		env = append(env, k+"="+v)
	}
	r.Start = mcpprobe.Probe(ctx, lookPath(srv.Command, getenv), srv.Args, env, dir, mcpprobe.Timeout)
	return r
}

// lookPath finds a bare command name on the hook's PATH, as the harness
// would on its own.
func lookPath(cmd string, getenv func(string) string) string {
	if strings.ContainsAny(cmd, `/\`) {
		return cmd
	}
	for _, d := range filepath.SplitList(getenv("PATH")) {
		if d == "" {
			continue
		}
		if p, err := exec.LookPath(filepath.Join(d, cmd)); err == nil {
			return p
		}
	}
	return cmd
}

func checkSecret(secrets []string, data string) error {
	installed, err := hooksecret.Read(hooksecret.Path(data))
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("there is no hook secret (" + hooksecret.Path(data) + ")")
	}
	if err != nil {
		return err
	}
	for _, s := range secrets {
		if !hooksecret.Matches(installed, s) {
			return errors.New("the hooks carry no hook secret, or not this install's (written by an older ctxhook)")
		}
	}
	return nil
}

// Problem is one sentence for the user when the hooks will not be
// answered, "" when they will (or there are none).
func (r Report) Problem() string {
	var why string
	switch {
	case r.Hooks == 0:
		return ""
	case r.Missing:
		why = fmt.Sprintf("ctxhook's MCP server is missing: %s does not list it", r.MCPConfig)
	case r.Foreign:
		why = fmt.Sprintf("the MCP server named ctxhook in %s is not ctxhook's (it runs %s)", r.MCPConfig, r.Command)
	case r.Start != nil:
		why = fmt.Sprintf("ctxhook's MCP server is broken: %s fails to start (%v)", r.Command, r.Start)
	case r.Secret != nil:
		why = fmt.Sprintf("ctxhook's MCP server will refuse them: %v", r.Secret)
	case r.Config != nil:
		return fmt.Sprintf("ctxhook's config is refused (%v): its mcp_tool hooks decide with the defaults, so no token is relayed. "+
			"Run 'ctxhook doctor claude-code'.", r.Config)
	default:
		return ""
	}
	return fmt.Sprintf("ctxhook's mcp_tool hooks in %s will not be answered: %s. Tool calls go on without ctxhook "+
		"(no token relay, nothing recorded). Run 'ctxhook doctor claude-code', then 'ctxhook install claude-code --hook-type mcp_tool'.", r.Settings, why)
}

package cli

import (
	"context"
	"fmt"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/decider"
	"github.com/ctxhook/ctxhook/host/internal/engine"
	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
	"github.com/ctxhook/ctxhook/host/internal/mcpserver"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/host/store/pgstore"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runMCP is `ctxhook mcp`: ctxhook's own MCP server on stdio.
func runMCP(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "mcp", "", "Serve ctxhook's MCP tools (search, get_context, get_event, stats) on stdin/stdout.\n"+
		"Harness configs run it; 'ctxhook install <harness>' adds it. Those four tools read the store only.\n"+
		"It also answers Claude Code's mcp_tool hooks ('ctxhook install claude-code --hook-type mcp_tool'):\n"+
		"the tool \"hook\", not listed to the model, decides a hook as 'ctxhook hook' does, so it writes:\n"+
		"the session's relay state (its token), and the call's event and tallies into the store (or its spool).\n"+
		"It answers only a call carrying the secret install wrote into those hooks (kept in\n"+
		"ctxhook's data directory, file hook-secret), and never for a ctxhook proxy's session.")
	pos, code, ok := parse(flags, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError(env, "mcp", "takes no arguments, not %q", pos[0])
	}
	p, err := resolvePaths(env)
	if err == nil {
		// A data directory ctxhook refuses (not this user's alone, not a
		// directory) fails here, where the harness and doctor see it,
		// not as an empty index and hooks that answer nothing.
		err = paths.EnsureDir(p.Data)
	}
	if err != nil {
		return fail(env, "%v", err)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// Claude Code's mcp_tool hooks are decided as `ctxhook hook` decides
	// them (the daemon first, else in-process), by a decider made on the
	// first such hook: a session without them starts nothing. Each is
	// bounded by the hook's deadline; a daemon that took the hook finishes
	// it in the background, as for a hook command.
	var mu sync.Mutex
	var dec *decider.Decider
	closed := false
	warned := map[string]bool{}
	defer func() {
		mu.Lock()
		closed = true
		d := dec
		mu.Unlock()
		if d != nil {
			d.Close() // its writer may still warn, which takes mu
		}
	}()
	decide := func(ctx context.Context, harness, event string, payload []byte) (string, error) {
		mu.Lock()
		if closed {
			mu.Unlock()
			return "", fmt.Errorf("ctxhook mcp is shutting down")
		}
		if dec == nil {
			dec = decider.New(env.Getenv, p, func(kind, format string, a ...any) {
				mu.Lock()
				first := !warned[kind]
				warned[kind] = true
				mu.Unlock()
				if first {
					fmt.Fprintf(env.Stderr, "ctxhook mcp: "+format+"\n", a...)
				}
			})
		}
		d := dec
		mu.Unlock()
		return decideHook(ctx, d, env.Getenv, harness, event, payload)
	}
	secret := func() (string, error) { return hooksecret.Read(hooksecret.Path(p.Data)) }
	srv := mcpserver.New(mcpserver.Options{DB: p.DB(), Spool: p.SpoolDir(), Version: Version(), Decide: decide, HookSecret: secret,
		OpenShared: sharedOpener(ctx, env, p)})
	defer srv.Close()
	// A hook's payload may be as large as any hook's (hookproto.MaxInput,
	// its strings escaped once more inside the tools/call): past the SDK's
	// default line limit the server would end, and every later hook and
	// search of the session with it.
	if err := srv.MCP().Run(ctx, &mcp.StdioTransport{MaxLineLength: 2*hookproto.MaxInput + 1<<20}); err != nil && ctx.Err() == nil {
		fmt.Fprintf(env.Stderr, "ctxhook mcp: %v\n", err)
		return 1
	}
	return 0
}

// decideHook decides one of Claude Code's mcp_tool hooks within the
// hook's deadline; a big payload's deadline grows with it (a second per
// 4 MiB, as for the proxy's results), within decider.MaxDeadline.
func decideHook(ctx context.Context, d *decider.Decider, getenv func(string) string, harness, event string, payload []byte) (string, error) {
	base := engine.Deadline(getenv)
	if len(payload) < 4<<20 {
		ctx, cancel := context.WithTimeout(ctx, base)
		defer cancel()
		return d.Decide(ctx, harness, event, payload)
	}
	deadline := decider.Deadline(base, len(payload))
	ctx, cancel := context.WithTimeout(ctx, deadline+2*time.Second)
	defer cancel()
	return d.DecideWithin(ctx, d.NewID(), harness, event, payload, deadline)
}

// sharedOpener opens the configured shared store for the tools to read,
// within a few seconds (a tool call waits for it); nil when none is
// configured. A config that names one and cannot be read is said once
// on stderr, and the tools read this machine's store.
func sharedOpener(ctx context.Context, env Env, p paths.Paths) func() (mcpserver.Shared, error) {
	sc, err := config.LoadStore(p.Config, env.Getenv)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ctxhook mcp: %s; the tools read this machine's store only\n", platform.TermSafe(err.Error()))
		return nil
	}
	if sc.URL == "" {
		return nil
	}
	return func() (mcpserver.Shared, error) {
		st, err := pgstore.Open(ctx, sc.URL, pgstore.Options{Machine: sc.Machine, Team: sc.Team, Timeout: 5 * time.Second})
		if err != nil {
			return nil, err
		}
		return st, nil
	}
}

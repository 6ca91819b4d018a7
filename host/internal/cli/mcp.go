package cli

import (
	"context"
	"fmt"
	"os/signal"
	"syscall"

	"github.com/ctxhook/ctxhook/host/internal/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runMCP is `ctxhook mcp`: ctxhook's own MCP server on stdio.
func runMCP(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "mcp", "", "Serve ctxhook's MCP tools (search, get_context, get_event, stats) on stdin/stdout.\n"+
		"Harness configs run it; 'ctxhook install <harness>' adds it. Reads the store only.")
	pos, code, ok := parse(flags, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError(env, "mcp", "takes no arguments, not %q", pos[0])
	}
	p, err := resolvePaths(env)
	if err != nil {
		return fail(env, "%v", err)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	srv := mcpserver.New(mcpserver.Options{DB: p.DB(), Version: Version()})
	if err := srv.MCP().Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
		fmt.Fprintf(env.Stderr, "ctxhook mcp: %v\n", err)
		return 1
	}
	return 0
}

package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxhook/ctxhook/host/internal/hook"
)

func runHook(ctx context.Context, env Env, args []string) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintf(env.Stdout, "Usage: ctxhook hook <harness> <event>\n\nRuns as a hook: reads the harness's JSON payload on stdin and prints its answer.\nHarnesses: %s. Configured by 'ctxhook install <harness>'.\n", strings.Join(hook.Harnesses, ", "))
		return 0
	}
	// Wrong usage is still fail-open: a hook must never block the agent.
	if len(args) != 2 || !slices.Contains(hook.Harnesses, args[0]) {
		fmt.Fprintf(env.Stderr, "ctxhook: usage: ctxhook hook <harness> <event> (harnesses: %s); the agent continues without ctxhook\n",
			strings.Join(hook.Harnesses, ", "))
		return 0
	}
	return hook.Run(ctx, args[0], args[1], hook.IO{Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr}, env.Getenv)
}

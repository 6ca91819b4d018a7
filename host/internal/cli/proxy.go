package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/proxy"
)

func runProxy(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "proxy", "--name NAME [flags] -- command [args...]",
		"Stand in for an MCP server on stdio: run the real server as a child, pass\n"+
			"every message through, relay its session token (captured from result\n"+
			"_meta, injected into the next tools/call, hidden from the model) and\n"+
			"record every tool result in ctxhook's store.\n\n"+
			"Put it in your client's MCP config in place of the server's command, e.g.\n"+
			"  ctxhook proxy --name workflow -- node server.js\n"+
			"and enable the relay in config.toml: [servers.workflow] relay = true")
	name := flags.String("name", "", "the server's name, as in [servers.<name>] of config.toml (required)")
	session := flags.String("session", "", "session id for state and events (default: random per connection)")
	timeout := flags.Duration("timeout", 10*time.Minute, "how long a request may wait for the server before the client gets an error")
	var command []string
	for i, a := range args {
		if a == "--" {
			args, command = args[:i], args[i+1:]
			break
		}
	}
	if err := flags.Parse(args); err != nil {
		if err.Error() == "flag: help requested" {
			return 0
		}
		return 2
	}
	if *name == "" || len(command) == 0 || flags.NArg() > 0 {
		fmt.Fprintln(env.Stderr, "ctxhook: proxy needs --name and the server command after --")
		flags.Usage()
		return 2
	}
	if *timeout <= 0 {
		return fail(env, "--timeout must be positive")
	}
	return proxy.Run(ctx, proxy.Options{Name: *name, Command: command, Session: *session, Timeout: *timeout,
		Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr, Getenv: env.Getenv})
}

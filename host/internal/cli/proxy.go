package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/config"

	"github.com/ctxhook/ctxhook/host/internal/proxy"
)

func runProxy(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "proxy", "--name NAME [flags] (-- command [args...] | --url URL)",
		"Stand in for an MCP server on stdio: run the real server as a child, pass\n"+
			"every message through, relay its session token (captured from result\n"+
			"_meta, injected into the next tools/call, hidden from the model) and\n"+
			"record every tool result in ctxhook's store.\n\n"+
			"Put it in your client's MCP config in place of the server's command, e.g.\n"+
			"  ctxhook proxy --name workflow -- node server.js\n"+
			"  ctxhook proxy --name jira --url https://host/mcp --header 'Authorization: Bearer ${JIRA_TOKEN}'\n"+
			"and enable the relay in config.toml: [servers.workflow] relay = true")
	name := flags.String("name", "", "the server's name, as in [servers.<name>] of config.toml (required)")
	session := flags.String("session", "", "session id for state and events (default: random per connection)")
	timeout := flags.Duration("timeout", 10*time.Minute, "how long a request may wait for the server before the client gets an error")
	maxMiB := flags.Int("max-message", proxy.DefaultMaxMessage>>20, "the largest message passed either way, in MiB (at most the default); a longer answer becomes an error for its request")
	url := flags.String("url", "", "a streamable-HTTP MCP endpoint to stand in for, instead of a command")
	var headers headerFlags
	flags.Var(&headers, "header", "an HTTP header for --url, 'Name: value' (repeatable); ${VAR} is read from the environment; [servers.NAME] headers in config.toml too")
	var command []string
	for i, a := range args {
		if a == "--" {
			args, command = args[:i], args[i+1:]
			break
		}
	}
	pos, code, ok := parse(flags, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return usageError(env, "proxy", "unexpected argument %q (the server's command goes after --)", pos[0])
	}
	if *name == "" || (len(command) == 0) == (*url == "") {
		return usageError(env, "proxy", "needs --name, and either the server command after -- or --url")
	}
	hdr := map[string]string{}
	if *url != "" {
		p, err := resolvePaths(env)
		if err != nil {
			return fail(env, "%v", err)
		}
		if hdr, err = config.ServerHeaders(p.Config, *name, env.Getenv); err != nil {
			return fail(env, "%v", err)
		}
		for _, h := range headers {
			k, v, _ := strings.Cut(h, ":")
			hdr[strings.TrimSpace(k)] = config.ExpandEnv(strings.TrimSpace(v), env.Getenv)
		}
	}
	if *timeout <= 0 {
		return usageError(env, "proxy", "--timeout must be positive")
	}
	if *maxMiB < 1 || *maxMiB > proxy.DefaultMaxMessage>>20 {
		return usageError(env, "proxy", "--max-message must be between 1 and %d (MiB), not %d", proxy.DefaultMaxMessage>>20, *maxMiB)
	}
	return proxy.Run(ctx, proxy.Options{Name: *name, Command: command, URL: *url, Headers: hdr, Session: *session, Timeout: *timeout, MaxMessage: *maxMiB << 20,
		Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr, Getenv: env.Getenv})
}

// headerFlags collects repeated --header values.
type headerFlags []string

func (h *headerFlags) String() string { return strings.Join(*h, ", ") }

func (h *headerFlags) repeatable() {}

func (h *headerFlags) Set(v string) error {
	if k, _, ok := strings.Cut(v, ":"); !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("want 'Name: value', got %q", v)
	}
	*h = append(*h, v)
	return nil
}

package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/store"
)

func runPurge(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "purge", "[--session ID] [--server NAME] [--older-than AGE] [--all] [--dry-run] [--vacuum]",
		"Delete captured events (and transcript turns) for good: those of a session,\n"+
			"of an MCP server, or older than an age (30d, 12h, 90m); the filters combine.\n"+
			"Deleted content is overwritten and the write-ahead log truncated, so it is\n"+
			"gone from the files too. --dry-run says what would go.")
	session := flags.String("session", "", "this session's events and turns")
	server := flags.String("server", "", "this MCP server's events")
	older := flags.String("older-than", "", "captured longer ago than AGE (e.g. 30d, 12h)")
	all := flags.Bool("all", false, "everything")
	dry := flags.Bool("dry-run", false, "only say what would be purged")
	vacuum := flags.Bool("vacuum", false, "also compact the database file")
	if rest, code, ok := parse(flags, args); !ok {
		return code
	} else if len(rest) > 0 {
		return usageError(env, "purge", "unexpected argument %q", rest[0])
	}
	f := store.PurgeFilter{Session: *session, Server: *server, All: *all}
	if *older != "" {
		age, err := parseAge(*older)
		if err != nil {
			return usageError(env, "purge", "--older-than %q: %v", *older, err)
		}
		f.BeforeMS = time.Now().Add(-age).UnixMilli()
	}
	if f == (store.PurgeFilter{}) {
		return usageError(env, "purge", "say what to purge: --session, --server, --older-than, or --all")
	}
	if f.All && (f.Session != "" || f.Server != "" || f.BeforeMS != 0) {
		return usageError(env, "purge", "--all does not combine with other filters")
	}
	st, code := openStoreWith(env, store.Options{})
	if st == nil {
		return code
	}
	defer st.Close()
	p, err := st.Purge(f, *dry, *vacuum)
	if err != nil {
		return fail(env, "%v", err)
	}
	verb := "purged"
	if *dry {
		verb = "would purge"
	}
	fmt.Fprintf(env.Stdout, "%s %s and %s (%d bytes)\n", verb, plural(p.Events, "event", "events"), plural(p.Turns, "transcript turn", "transcript turns"), p.Bytes)
	return 0
}

// usageError reports a bad invocation: one line, exit 2.
func usageError(env Env, cmd, format string, a ...any) int {
	fmt.Fprintf(env.Stderr, "ctxhook: "+cmd+": "+format+" (see ctxhook "+cmd+" --help)\n", a...)
	return 2
}

// parseAge reads 30d, 12h, 90m, 45s (and anything time.ParseDuration takes).
func parseAge(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 {
			return 0, fmt.Errorf("want a number of days, like 30d")
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want an age like 30d, 12h or 90m")
	}
	return d, nil
}

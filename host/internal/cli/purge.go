package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/host/internal/state"
	"github.com/ctxhook/ctxhook/host/store"
)

func runPurge(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "purge", "[--session ID] [--server NAME] [--older-than AGE] [--all] [--dry-run] [--vacuum]",
		"Delete captured events (and transcript turns) for good: those of a session,\n"+
			"of an MCP server, or older than an age (30d, 12h, 90m); the filters combine.\n"+
			"Deleted content is overwritten and the write-ahead log truncated, so it is\n"+
			"gone from the files too. --dry-run says what would go. On a terminal it asks\n"+
			"before deleting (--yes does not ask).")
	session := flags.String("session", "", "this session's events and turns")
	server := flags.String("server", "", "this MCP server's events")
	older := flags.String("older-than", "", "captured longer ago than AGE (e.g. 30d, 12h)")
	all := flags.Bool("all", false, "everything")
	dry := flags.Bool("dry-run", false, "only say what would be purged")
	vacuum := flags.Bool("vacuum", false, "also compact the database file")
	yes := flags.Bool("yes", false, "do not ask for confirmation (asked only on a terminal)")
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
	if !*dry && !*yes && platform.IsTerminal(env.Stdin) {
		p, err := st.Purge(f, true, false)
		if err != nil {
			return fail(env, "%v", err)
		}
		fmt.Fprintf(env.Stderr, "Delete %s and %s (%d bytes) for good, with their sessions' relay tokens? [y/N] ",
			plural(p.Events, "event", "events"), plural(p.Turns, "transcript turn", "transcript turns"), p.Bytes)
		answer, _ := bufio.NewReader(env.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(env.Stderr, "ctxhook: purge: nothing deleted (--yes skips this question)")
			return 1
		}
	}
	p, err := st.Purge(f, *dry, *vacuum)
	if err != nil {
		return fail(env, "%v", err)
	}
	verb := "purged"
	if *dry {
		verb = "would purge"
	}
	fmt.Fprintf(env.Stdout, "%s %s and %s (%d bytes)\n", verb, plural(p.Events, "event", "events"), plural(p.Turns, "transcript turn", "transcript turns"), p.Bytes)
	if !*dry {
		if n, err := purgeState(env, f); err != nil {
			return fail(env, "session state: %v", err)
		} else if n > 0 {
			fmt.Fprintf(env.Stdout, "purged the session state (relay tokens, counters) of %s\n", plural(int64(n), "session", "sessions"))
		}
	}
	return 0
}

// purgeState deletes the session documents (relay tokens, nudge counters)
// a purge covers: they hold the last token each relayed server issued,
// which must not outlive the events purged with them. A server's tokens
// sit inside its sessions' documents, so --server alone keeps them. The
// record of own values (ownsecrets.RecordName) is kept: a model may have
// read a purged session's token, and it must stay redacted from what
// ctxhook captures later.
func purgeState(env Env, f store.PurgeFilter) (int, error) {
	p, err := resolvePaths(env)
	if err != nil {
		return 0, err
	}
	if _, err := os.Stat(p.StateDir()); err != nil {
		return 0, nil
	}
	sd, err := state.Open(p.StateDir())
	if err != nil {
		return 0, err
	}
	switch {
	case f.All:
		return sd.RemoveOlder(time.Time{})
	case f.Session != "":
		// The plugin keeps a session's document under "session/<id>"
		// (plugin/internal/engine: stateKey).
		return sd.Remove([]string{"session/" + f.Session})
	case f.BeforeMS != 0 && f.Server == "":
		return sd.RemoveOlder(time.UnixMilli(f.BeforeMS))
	}
	return 0, nil
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

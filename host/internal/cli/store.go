package cli

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/host/internal/shipper"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/pgstore"
)

const storeSummary = `The shared store (PostgreSQL) of a team's or one user's machines.

  init [--url URL]            apply ctxhook's schema, as the database's administrator
  add-user NAME [--url URL]   create a user's database role (password on stdin), as the administrator
  ship                        send this machine's new events now (the daemon does it by itself)
  status                      where the shared store is and how many events wait to be sent
  search [flags] <query>      search the shared store (the local copy when it cannot be reached)
  migrate --to URL|FILE       move this store to PostgreSQL, or your shared events back into FILE

The URL is [store] url in config.toml or CTXHOOK_STORE_URL; keep the password
in ~/.pgpass, not in the URL.`

var storeCommands = map[string]func(context.Context, Env, []string) int{
	"init": storeInit, "add-user": storeAddUser, "ship": storeShip, "status": storeStatus,
	"search": storeSearch, "migrate": storeMigrate,
}

func runStore(ctx context.Context, env Env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 0 {
			return usageError(env, "store", "name a subcommand: init, add-user, ship, status, search, migrate")
		}
		fmt.Fprintf(env.Stdout, "Usage: ctxhook store <subcommand> ...\n\n%s\n", storeSummary)
		return 0
	}
	run, ok := storeCommands[args[0]]
	if !ok {
		return usageError(env, "store", "unknown subcommand %q", args[0])
	}
	return run(ctx, env, args[1:])
}

// storeURL is --url if given (checked as a configured one is), else the
// configured shared store.
func storeURL(env Env, flagURL string) (string, error) {
	if flagURL != "" {
		return config.SecureStoreURL(flagURL, env.Getenv)
	}
	p, err := resolvePaths(env)
	if err != nil {
		return "", err
	}
	sc, err := config.LoadStore(p.Config, env.Getenv)
	if err != nil {
		return "", err
	}
	if sc.URL == "" {
		return "", fmt.Errorf("no shared store: set [store] url in %s or %s", p.Config, config.EnvStoreURL)
	}
	return sc.URL, nil
}

func storeInit(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "store", "init [--url URL]", "Apply ctxhook's schema to the shared store, as its administrator.")
	u := flags.String("url", "", "the administrator's URL (default: the configured one)")
	if rest, code, ok := parse(flags, args); !ok {
		return code
	} else if len(rest) > 0 {
		return usageError(env, "store", "init: unexpected argument %q", rest[0])
	}
	url, err := storeURL(env, *u)
	if err != nil {
		return fail(env, "%v", err)
	}
	from, to, err := pgstore.Init(ctx, url)
	if err != nil {
		return fail(env, "%v", err)
	}
	if from == to {
		fmt.Fprintf(env.Stdout, "%s: schema %d, up to date\n", shipper.Where(url), to)
	} else {
		fmt.Fprintf(env.Stdout, "%s: schema %d -> %d\n", shipper.Where(url), from, to)
	}
	return 0
}

func storeAddUser(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "store", "add-user NAME [--url URL]",
		"Create (or reset) a user's database role, a member of ctxhook_users, as the administrator.\nThe password is read from stdin (one line), never from the command line.")
	u := flags.String("url", "", "the administrator's URL (default: the configured one)")
	rest, code, ok := parse(flags, args)
	if !ok {
		return code
	}
	if len(rest) != 1 {
		return usageError(env, "store", "add-user needs one NAME")
	}
	url, err := storeURL(env, *u)
	if err != nil {
		return fail(env, "%v", err)
	}
	line, _ := bufio.NewReader(env.Stdin).ReadString('\n')
	pw := strings.TrimRight(line, "\r\n")
	if len(pw) < 12 {
		return fail(env, "the password (on stdin) must be at least 12 characters")
	}
	if err := pgstore.AddUser(ctx, url, rest[0], pw); err != nil {
		return fail(env, "%v", err)
	}
	fmt.Fprintf(env.Stdout, "role %s can use the shared store\n", rest[0])
	return 0
}

func storeShip(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "store", "ship", "Send this machine's new events to the shared store now.")
	if rest, code, ok := parse(flags, args); !ok {
		return code
	} else if len(rest) > 0 {
		return usageError(env, "store", "ship: unexpected argument %q", rest[0])
	}
	p, err := resolvePaths(env)
	if err != nil {
		return fail(env, "%v", err)
	}
	if _, err := storeURL(env, ""); err != nil {
		return fail(env, "%v", err)
	}
	r, err := shipper.Once(ctx, p, env.Getenv, func(s pgstore.Shipped) {
		fmt.Fprintf(env.Stderr, "shipped %d events (%d bytes), %d to go\n", s.Events, s.Bytes, s.Pending)
	})
	if err != nil {
		return fail(env, "%v (%d events wait in the local store)", err, r.Pending)
	}
	fmt.Fprintf(env.Stdout, "%s: %d events sent, %d waiting\n", r.Database, r.Shipped, r.Pending)
	return 0
}

func storeStatus(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "store", "status", "Where the shared store is, and how many events wait to be sent.")
	if rest, code, ok := parse(flags, args); !ok {
		return code
	} else if len(rest) > 0 {
		return usageError(env, "store", "status: unexpected argument %q", rest[0])
	}
	p, err := resolvePaths(env)
	if err != nil {
		return fail(env, "%v", err)
	}
	url, err := storeURL(env, "")
	if err != nil {
		fmt.Fprintln(env.Stdout, "no shared store: events stay in the local store")
		return 0
	}
	fmt.Fprintln(env.Stdout, shipStatus(p, url))
	return 0
}

// shipStatus says in one line how shipping stands, from the last report.
func shipStatus(p paths.Paths, url string) string {
	r, ok := shipper.ReadReport(p)
	switch {
	case !ok:
		return fmt.Sprintf("shared store %s: nothing sent yet (the daemon sends; or ctxhook store ship)", shipper.Where(url))
	case r.Error != "":
		return fmt.Sprintf("shared store %s unreachable since %s: %d events wait in the local store (%s)",
			platform.TermSafe(r.Database), time.UnixMilli(r.SinceMS).Format(time.DateTime), r.Pending, platform.TermSafe(r.Error))
	default:
		return fmt.Sprintf("shared store %s: %d events waiting, last sent %s", platform.TermSafe(r.Database), r.Pending, time.UnixMilli(r.AtMS).Format(time.DateTime))
	}
}

// storeSearch searches the shared store, or says it cannot and searches
// the local copy.
func storeSearch(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "store", "search [--session ID] [--server NAME] [--limit N] <query>",
		"Search the shared store: your events and the team's. When it cannot be reached, the local copy.")
	session := flags.String("session", "", "only this session id")
	server := flags.String("server", "", "only this MCP server")
	limit := flags.Int("limit", 10, "at most this many results (1-200)")
	pos, code, ok := parse(flags, args)
	if !ok {
		return code
	}
	q := store.ParseQuery(strings.Join(pos, " "))
	if q.Empty() || *limit < 1 || *limit > 200 {
		return usageError(env, "store", "search needs a query and a --limit of 1-200")
	}
	b, where, code := openShared(ctx, env)
	if b == nil {
		return code
	}
	defer b.Close()
	res, err := b.SearchResult(q, store.SearchOptions{Session: *session, Server: *server, Limit: *limit})
	if err != nil {
		return fail(env, "%v", err)
	}
	w := platform.NewTermWriter(env.Stdout)
	defer w.Flush()
	fmt.Fprintf(w, "%s: %s\n", where, plural(int64(res.Total), "result", "results"))
	for _, h := range res.Hits {
		e := h.Event
		fmt.Fprintf(w, "#%-5d %s  %-9s %-32s session %s\n       %s\n",
			e.ID, time.UnixMilli(e.TimeMS).Format("2006-01-02 15:04:05"), e.Category, label(e), shortID(e.Session), h.Snippet)
	}
	return 0
}

// openShared opens the shared store, or, when it cannot be reached, the
// local copy, saying so on stderr.
func openShared(ctx context.Context, env Env) (store.Backend, string, int) {
	url, err := storeURL(env, "")
	if err != nil {
		return nil, "", fail(env, "%v", err)
	}
	p, err := resolvePaths(env)
	if err != nil {
		return nil, "", fail(env, "%v", err)
	}
	sc, _ := config.LoadStore(p.Config, env.Getenv)
	remote, err := pgstore.Open(ctx, url, pgstore.Options{Machine: sc.Machine, Team: sc.Team, Timeout: 5 * time.Second})
	if err == nil {
		return remote, "shared store " + shipper.Where(url), 0
	}
	fmt.Fprintf(env.Stderr, "ctxhook: the shared store cannot be reached (%s); searching this machine's copy\n", platform.TermSafe(err.Error()))
	st, code := openStore(env)
	if st == nil {
		return nil, "", code
	}
	return st, "local copy " + p.DB(), 0
}

// doctorShared reports the shared store, if one is configured: where, and
// how many events wait to be shipped (a failing shipper is a FIX: the
// events wait in the local store, bounded by its retention caps).
func doctorShared(env Env, p paths.Paths, okf, bad, info func(string, ...any)) {
	sc, err := config.LoadStore(p.Config, env.Getenv)
	switch {
	case err != nil:
		bad("%v", err)
		return
	case sc.URL == "":
		return
	}
	r, ok := shipper.ReadReport(p)
	switch {
	case !ok:
		info("shared store %s: nothing shipped yet (the daemon ships; or ctxhook store ship)", shipper.Where(sc.URL))
	case r.Error != "":
		bad("%s", shipStatus(p, sc.URL))
	default:
		okf("%s", shipStatus(p, sc.URL))
	}
}

package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/shipper"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/pgstore"
)

// storeMigrate moves this machine's store to PostgreSQL (--to a URL), or
// the user's own events in the shared store back into a local file (--to
// a path). Both resume where they stopped and copy nothing twice: to
// PostgreSQL, the database keeps the highest local id it holds; back, the
// file keeps the highest shared id, each written with its batch.
func storeMigrate(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "store", "migrate --to URL|FILE [--from URL]",
		"Move this machine's store into a PostgreSQL store (--to postgres://...), or your events\nin the shared store (--from, default the configured one) back into a local file (--to FILE).\nRun again, it resumes and duplicates nothing.")
	to := flags.String("to", "", "a postgres:// URL or a file")
	from := flags.String("from", "", "the shared store to copy back from (default: the configured one)")
	if rest, code, ok := parse(flags, args); !ok {
		return code
	} else if len(rest) > 0 || *to == "" {
		return usageError(env, "store", "migrate needs --to URL|FILE")
	}
	p, err := resolvePaths(env)
	if err != nil {
		return fail(env, "%v", err)
	}
	sc, err := config.LoadStore(p.Config, env.Getenv)
	if err != nil {
		return fail(env, "%v", err)
	}
	if strings.HasPrefix(*to, "postgres://") || strings.HasPrefix(*to, "postgresql://") {
		dst, err := config.SecureStoreURL(*to, env.Getenv)
		if err != nil {
			return fail(env, "%v", err)
		}
		return migrateUp(ctx, env, p.DB(), dst, sc)
	}
	src, err := storeURL(env, *from)
	if err != nil {
		return fail(env, "%v", err)
	}
	return migrateDown(ctx, env, src, *to, sc)
}

func migrateUp(ctx context.Context, env Env, db, url string, sc config.Store) int {
	local, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		return fail(env, "%v", err)
	}
	defer local.Close()
	remote, err := pgstore.Open(ctx, url, pgstore.Options{Machine: sc.Machine, Team: sc.Team})
	if err != nil {
		return fail(env, "%v", err)
	}
	defer remote.Close()
	out, err := remote.Ship(ctx, local, func(s pgstore.Shipped) {
		fmt.Fprintf(env.Stderr, "%d events copied, %d to go\n", s.Events, s.Pending)
	})
	if err != nil {
		return fail(env, "%v (run it again to resume)", err)
	}
	fmt.Fprintf(env.Stdout, "%s: %d events copied, %d there already\n", shipper.Where(url), out.Events, out.Skipped)
	return 0
}

func migrateDown(ctx context.Context, env Env, url, file string, sc config.Store) int {
	abs, err := filepath.Abs(file)
	if err != nil {
		return fail(env, "%v", err)
	}
	local, err := store.Open(abs, store.Options{})
	if err != nil {
		return fail(env, "%v", err)
	}
	defer local.Close()
	remote, err := pgstore.Open(ctx, url, pgstore.Options{Machine: sc.Machine, Team: sc.Team})
	if err != nil {
		return fail(env, "%v", err)
	}
	defer remote.Close()
	n, err := remote.CopyOut(ctx, local, shipper.Where(url), func(copied, cursor int64) {
		fmt.Fprintf(env.Stderr, "%d events copied (up to shared id %d)\n", copied, cursor)
	})
	if err != nil {
		return fail(env, "%v (run it again to resume)", err)
	}
	fmt.Fprintf(env.Stdout, "%s: %d events copied from %s\n", abs, n, shipper.Where(url))
	return 0
}

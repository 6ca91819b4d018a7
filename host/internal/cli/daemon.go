package cli

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/daemon"
	"github.com/ctxhook/ctxhook/host/internal/shipper"
	"github.com/ctxhook/ctxhook/host/internal/testhooks"
)

// logTo logs s with log, if there is one.
func logTo(log func(string), s string) {
	if log != nil {
		log(s)
	}
}

// runDaemon is `ctxhook daemon`: the warm path for hooks. ctxhook-hook
// starts it on first use; running it by hand is for debugging.
func runDaemon(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "daemon", "[--idle 10m]", "Serve hooks from warm plugin instances over a Unix socket (one per user).\n"+
		"The hook client ctxhook-hook starts it on first use and answers in-process whenever it is missing, hung or of another build.")
	defIdle := 10 * time.Minute
	if d, err := time.ParseDuration(env.Getenv("CTXHOOK_DAEMON_IDLE")); err == nil && d > 0 {
		defIdle = d
	}
	idle := flags.Duration("idle", defIdle, "exit after this long without a request (default from CTXHOOK_DAEMON_IDLE, else 10m)")
	verbose := flags.Bool("v", false, "log to stderr")
	if _, code, ok := parse(flags, args); !ok {
		return code
	}
	p, err := resolvePaths(env)
	if err != nil {
		return fail(env, "%v", err)
	}
	// SIGINT (a daemon run by hand) stops it in order. SIGTERM is left to
	// the runtime, which ends the process at once: the watchdog relies on
	// that (see package watchdog), and nothing acknowledged is lost by it
	// (events are in spool files before any answer).
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT)
	defer stop()
	// The fault tests' knobs: all zero outside a ctxhook_testhooks build.
	k := testhooks.DaemonKnobs(env.Getenv)
	o := daemon.Options{Paths: p, Getenv: env.Getenv, Idle: *idle,
		BuildID: k.BuildID, Delay: k.Delay, LargeInFlight: k.InFlight, Watchdog: k.Watchdog}
	if o.Plugin, err = testhooks.PluginWasm(env.Getenv); err != nil {
		return fail(env, "%v", err)
	}
	if *verbose {
		o.Log = func(s string) { fmt.Fprintf(env.Stderr, "ctxhook daemon: %s\n", s) }
	}
	// The shipper copies the local store to the shared one, if any; a
	// second one for a moment (this daemon finds another running) sends
	// nothing twice.
	sctx, stopShipper := context.WithCancel(ctx)
	defer stopShipper()
	go shipper.Loop(sctx, p, env.Getenv, func(s string) { logTo(o.Log, s) })
	if err := daemon.Run(ctx, o); errors.Is(err, daemon.ErrRunning) {
		if *verbose {
			fmt.Fprintln(env.Stderr, "ctxhook daemon: another one is running")
		}
		return 0
	} else if err != nil {
		return fail(env, "daemon: %v", err)
	}
	return 0
}

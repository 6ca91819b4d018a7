package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/childenv"
	"github.com/ctxhook/ctxhook/host/internal/daemon"
	"github.com/ctxhook/ctxhook/host/internal/engine"
	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/host/runner"
)

func runHook(ctx context.Context, env Env, args []string) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintf(env.Stdout, "Usage: ctxhook hook <harness> <event>\n\nRuns as a hook: reads the harness's JSON payload on stdin and prints its answer.\nHarnesses: %s. Configured by 'ctxhook install <harness>'.\n", strings.Join(engine.Harnesses, ", "))
		return 0
	}
	// Wrong usage is still fail-open: a hook must never block the agent.
	if len(args) != 2 || !slices.Contains(engine.Harnesses, args[0]) {
		fmt.Fprintf(env.Stderr, "ctxhook: usage: ctxhook hook <harness> <event> (harnesses: %s); the agent continues without ctxhook\n",
			strings.Join(engine.Harnesses, ", "))
		return 0
	}
	stdin := env.Stdin
	if env.Getenv(engine.EnvLate) != "" {
		payload, done := finishByDaemon(env, args[0], args[1])
		if done {
			return 0
		}
		stdin = bytes.NewReader(payload)
	} else if env.Getenv(hookproto.EnvDaemonStarting) != "" && env.Getenv("CTXHOOK_NO_DAEMON") == "" {
		payload, code, done := viaStartingDaemon(env, args[0], args[1])
		if done {
			return code
		}
		stdin = bytes.NewReader(payload)
	}
	return engine.Run(ctx, args[0], args[1], engine.IO{Stdin: stdin, Stdout: env.Stdout, Stderr: env.Stderr,
		Finish: func(harness, event string, payload []byte, extra []string) error {
			return finishLater(env, harness, event, payload, extra)
		},
		Process: true, StoreLater: func() { storeLater(env) }}, env.Getenv)
}

// finishByDaemon finishes a hook handed on at its deadline through the
// daemon when one runs: the daemon decides without cancellation checks
// and one payload at a time (a background run in this process would
// compete with it for the same cores, several times slower), and if it
// is still deciding this hook, under the same request id, it answers
// when that run ends instead of deciding it again. This process keeps
// the payload meanwhile: if the daemon cannot finish the hook, it runs
// here (done false, payload the input read).
func finishByDaemon(env Env, harness, event string) (payload []byte, done bool) {
	payload, err := engine.ReadPayload(env.Stdin)
	if err != nil || len(payload) > engine.MaxInput || env.Getenv("CTXHOOK_NO_DAEMON") != "" {
		return payload, false
	}
	p, err := paths.Resolve(env.Getenv)
	if err != nil {
		return payload, false
	}
	req := hookproto.Request{Harness: harness, Event: event, ID: env.Getenv(hookproto.EnvRequestID), Deadline: hookproto.Late,
		Late: true, Environ: hookproto.PluginEnviron(harness, event, childenv.Of(env.Getenv)), Payload: payload}
	c := daemon.Client{Paths: p}
	defer c.Close()
	a, err := c.Ask(req, hookproto.Late+10*time.Second)
	if err != nil && !runner.Ready(p.WasmCache(), nil, true) && c.AwaitStart(time.Now().Add(hookproto.Late/2)) {
		// A cold start: the daemon was compiling the plugin. Asked now,
		// it decides this hook in milliseconds; deciding it here would
		// load the plugin in one more process.
		a, err = c.Ask(req, hookproto.Late+10*time.Second)
	}
	return payload, err == nil && a.Failed == ""
}

// viaStartingDaemon runs a hook whose client has just started the daemon
// (hookproto.EnvDaemonStarting). With the plugin in the cache it does
// nothing (done false): the hook runs here, as the daemon loads. On a
// cold start that daemon compiles the plugin, and only it: the hook waits
// for its socket and asks it, and if the daemon is not up by its deadline
// (less the time to start a process) it answers without a decision and
// hands the payload on, as at any deadline; the finisher asks the daemon
// again. Compiling here as well would double the work on the same cores,
// and a burst of hooks compiling at once all missed their deadlines.
func viaStartingDaemon(env Env, harness, event string) (payload []byte, code int, done bool) {
	start := time.Now()
	deadline := engine.Deadline(env.Getenv)
	payload, err := engine.ReadPayload(env.Stdin)
	p, perr := paths.Resolve(env.Getenv)
	if err != nil || len(payload) > engine.MaxInput || perr != nil || runner.Ready(p.WasmCache(), nil, true) {
		return payload, 0, false
	}
	handOnAt := start.Add(deadline - coldMargin - hookproto.HandOn(len(payload)))
	c := daemon.Client{Paths: p}
	defer c.Close()
	if c.AwaitStart(handOnAt) {
		// The daemon answers by then, with no decision if it has none
		// yet: what is left keeps room to hand the payload on.
		left := deadline - time.Since(start) - 50*time.Millisecond - hookproto.HandOn(len(payload))
		req := hookproto.Request{Harness: harness, Event: event, ID: env.Getenv(hookproto.EnvRequestID), Deadline: max(left, time.Millisecond),
			Environ: hookproto.PluginEnviron(harness, event, childenv.Of(env.Getenv)), Payload: payload}
		a, err := c.Ask(req, max(left, time.Millisecond))
		if err == nil {
			if a.Failed == hookproto.NoDecision {
				// Decided after the answer: handed on as well, as the
				// hook client does, so it is stored if the daemon dies.
				finishLater(env, harness, event, payload, []string{engine.EnvLate + "=1"})
			}
			io.WriteString(env.Stdout, a.Text)
			io.WriteString(env.Stderr, a.Stderr)
			return payload, a.Code, true
		}
	}
	if runner.Ready(p.WasmCache(), nil, true) && time.Since(start) < deadline-coldMargin-time.Second {
		return payload, 0, false // compiled, but no daemon: decided here
	}
	if finishLater(env, harness, event, payload, []string{engine.EnvLate + "=1"}) != nil {
		return payload, 0, false
	}
	fmt.Fprintf(env.Stderr, "ctxhook: %s\n", hookproto.HandedOn(harness, event, deadline))
	return payload, 0, true
}

// coldMargin is what a hook waiting for a daemon to compile the plugin
// keeps of its deadline to hand the payload on.
const coldMargin = 300 * time.Millisecond

// storeLater starts `ctxhook io replay` on its own, to store what a hook
// spooled so that it could answer before a big response was indexed.
// A failure to start it is harmless: the spool waits for the next writer.
func storeLater(env Env) {
	startDetached(env, []string{"io", "replay"}, nil, nil)
}

// startDetached starts this binary with args, extra on top of the
// command's environment (childenv: the one env's lookup sees) and stdin
// in (nil: /dev/null), and leaves it: nothing of the harness's (a pipe,
// a directory) is held by it (package detach).
func startDetached(env Env, args []string, extra []string, in *os.File) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	return platform.StartDetached(self, args, append(childenv.Of(env.Getenv), extra...), in)
}

// finishLater runs `ctxhook hook` again in a process of its own, in its
// own session and with nothing of the harness's (no pipes it would wait
// on): stdin a file with no name holding the payload (memfile), the
// one the hook client uses for an in-process run when it is that, and
// stdout and stderr /dev/null. This process then answers the agent and exits.
func finishLater(env Env, harness, event string, payload []byte, extra []string) error {
	// The hook client hands a payload on in a file of its own:
	// that file serves again, rather than tens of MiB written once more
	// at the deadline.
	if fi, err := os.Stdin.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(payload)) && fi.Mode().Perm()&0o077 == 0 {
		if _, err := os.Stdin.Seek(0, 0); err == nil {
			return startDetached(env, []string{"hook", harness, event}, extra, os.Stdin)
		}
	}
	in, err := platform.MemFile(payload)
	if err != nil {
		return err
	}
	defer in.Close()
	return startDetached(env, []string{"hook", harness, event}, extra, in)
}

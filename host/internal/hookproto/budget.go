// A hook's budget, in time and in bytes.

package hookproto

import (
	"errors"
	"strconv"
	"time"
)

// Default is a hook's whole budget unless CTXHOOK_HOOK_DEADLINE_MS says
// otherwise; it is well inside every harness's own hook timeout.
const Default = 10 * time.Second

// MaxInput bounds a hook's payload (and so one message between the hook
// client and the daemon). An MCP result of 64 MiB arrives inside a
// payload a little larger than that (its JSON escaped once more); twice
// that leaves room. Larger input is refused, fail-open, rather than read
// into memory without limit.
const MaxInput = 128 << 20

// Late is the budget of a hook finished in the background after its
// process answered the agent at the deadline (see hook.Run): nobody waits
// for it, but it must still end.
const Late = 2 * time.Minute

// EnvLate marks a hook being finished in the background (hook.EnvLate),
// set by whichever process hands it on: the hook command or the client.
const EnvLate = "CTXHOOK_HOOK_LATE"

// EnvDaemonStarting tells `ctxhook hook` that the hook client found no
// daemon and started one: if the plugin is not compiled yet, that daemon
// compiles it, and the hook waits for the daemon rather than compiling it
// a second time (see the cli's hook command). It is a hint: whoever sets
// it can only make a hook wait for a daemon, up to its own deadline.
const EnvDaemonStarting = "CTXHOOK_DAEMON_STARTING"

// MaxHook bounds a budget from CTXHOOK_HOOK_DEADLINE_MS: no harness waits
// longer for a hook, and a larger value (9223372036854 ms overflowed a
// Duration) must not turn into a deadline in the past.
const MaxHook = 10 * time.Minute

// EnvDeadline is a hook's budget in milliseconds, as the harness's hook
// entry or a process handing a hook on sets it.
const EnvDeadline = "CTXHOOK_HOOK_DEADLINE_MS"

// Hook is the budget: CTXHOOK_HOOK_DEADLINE_MS when it is a positive
// number of milliseconds (at most MaxHook), else Default.
func Hook(getenv func(string) string) time.Duration {
	return budgetMS(getenv(EnvDeadline))
}

// budgetMS is a budget given in milliseconds (Hook's rule).
func budgetMS(s string) time.Duration {
	ms, err := strconv.ParseInt(s, 10, 64)
	if errors.Is(err, strconv.ErrRange) && ms > 0 {
		return MaxHook
	}
	if err != nil || ms <= 0 {
		return Default
	}
	return time.Duration(min(ms, MaxHook.Milliseconds())) * time.Millisecond
}

// Grace is how long past its deadline a hook still takes the rest of a
// payload that is arriving (tens of MiB from a busy pipe) so that it can
// hand it on rather than drop it. The hook's watchdog allows a second.
const Grace = 500 * time.Millisecond

// HandOn is how long handing a payload of n bytes on takes at most (a
// copy into a file, a memfd on Linux, at 100 MB/s: generous). The hook client
// ends its wait for the daemon that much before the deadline, and the
// daemon answers before the client gives up.
func HandOn(n int) time.Duration { return time.Duration(n/100) * time.Microsecond }

// NoDecision is the daemon's word (an answer's failure field) for a hook
// it answered at the deadline without a decision: the client then hands
// the payload on, since a daemon that dies before it finishes the hook
// would lose what the agent was told is stored.
const NoDecision = "no decision within the deadline"

// HandedOn is the one line a hook answered without a decision prints
// (after "ctxhook: "): at its deadline d, the hook finishes in the
// background. The hook command, the hook client and the daemon say it
// alike.
func HandedOn(harness, event string, d time.Duration) string {
	return harness + " " + event + ": no answer within " + d.String() + "; the agent continues without ctxhook, and the hook finishes in the background"
}

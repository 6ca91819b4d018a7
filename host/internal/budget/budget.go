// Package budget is a hook's budget, in time and in bytes. It is shared by the hook
// command and the hook client, which must not link the hook package (its
// start-up would pay for the plugin runner and SQLite).
package budget

import (
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

// Hook is the budget: CTXHOOK_HOOK_DEADLINE_MS when it is a positive
// number of milliseconds, else Default.
func Hook(getenv func(string) string) time.Duration {
	if ms, err := strconv.Atoi(getenv("CTXHOOK_HOOK_DEADLINE_MS")); err == nil && ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return Default
}

// The watchdog ends a process whose plugin call never returns, even
// when the Go runtime stands still waiting for that call (see ArmWatchdog).

package platform

import (
	"os"
	"time"
)

// inRuntime is the watchdog on a runtime timer, the fallback when the
// kernel's cannot be had: it cannot fire while a collection waits for a
// stuck guest call (see ArmWatchdog).
func inRuntime(d time.Duration, onFail func()) (disarm func()) {
	t := time.AfterFunc(d, func() {
		onFail()
		os.Exit(3)
	})
	return func() { t.Stop() }
}

package daemon

import (
	"os"
	"time"
)

// watchInRuntime is the watchdog on a runtime timer: it cannot fire while
// a collection waits for a stuck guest call (see watch).
func watchInRuntime(d time.Duration, onFail func()) (disarm func()) {
	t := time.AfterFunc(d, func() {
		onFail()
		os.Exit(3)
	})
	return func() { t.Stop() }
}

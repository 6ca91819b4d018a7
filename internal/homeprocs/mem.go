package homeprocs

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Memory is a process's resident set now and at its peak, in bytes, from
// /proc/<pid>/status (VmRSS, VmHWM); zeros when it cannot be read.
func Memory(pid int) (rss, peak int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb << 10
		case "VmHWM:":
			peak = kb << 10
		}
	}
	return rss, peak
}

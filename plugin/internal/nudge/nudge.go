// Package nudge decides when ctxhook reminds the model that captured
// responses can be searched instead of fetched again.
//
// A single early hint is compacted away in long sessions, so the reminder
// repeats on external MCP calls 1, N+1, 2N+1, ... of each session. Other
// categories (large file reads, shell) get one reminder per session.
package nudge

import (
	"strconv"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// Bounds for CTXHOOK_NUDGE_EVERY.
const (
	MinEvery = 1
	MaxEvery = 100
)

// Every parses the raw CTXHOOK_NUDGE_EVERY value. Anything missing, not an
// integer, or outside [MinEvery, MaxEvery] falls back to the default: a
// typo must never silence the reminder nor turn it into noise.
func Every(raw string) int {
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil || n < MinEvery || n > MaxEvery {
		return abi.DefaultNudgeEvery
	}
	return n
}

// Due reports whether the call with 1-based number call gets a nudge.
func Due(call, every int) bool {
	if call < 1 || every < 1 {
		return true // never stay silent on nonsense counters
	}
	return (call-1)%every == 0
}

// MCP is the periodic reminder for external MCP calls. It stays under 300
// characters so it costs little each time it fires.
const MCP = "ctxhook: MCP responses in this session are stored and indexed. " +
	"Before fetching the same ticket, log or page again, search what you already have: " +
	"ctxhook's search and get_event tools (or `ctxhook search \"<terms>\"`, `ctxhook show <id>`)."

// Once-per-session reminders, keyed by category.
var oneShot = map[string]string{
	abi.CategoryFileRead: "ctxhook: large file contents are indexed. To find a passage again, " +
		"run `ctxhook search \"<terms>\"` instead of re-reading the whole file.",
	abi.CategoryShell: "ctxhook: shell output is captured and indexed. For long output, " +
		"search it later with `ctxhook search \"<terms>\"` rather than running the command again.",
}

// OneShot returns the once-per-session reminder for a category, if any.
func OneShot(category string) (string, bool) {
	s, ok := oneShot[category]
	return s, ok
}

// LargeRead is the response size from which a file read counts as large.
const LargeRead = 16 << 10

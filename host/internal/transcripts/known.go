package transcripts

import (
	"encoding/json"
	"slices"
	"strconv"
)

// Bounds of the tokens every pass of `ctxhook index` redacts.
const (
	MaxKnownDocs = 512  // session documents read
	maxKnown     = 4096 // tokens kept
	minKnown     = 8    // shorter values are not tokens (redact.MinKnownLen)
)

// KnownTokens is every relay token the session documents docs hold or
// retired (the plugin's "tokens" and "retired" fields), deduplicated and
// bounded. A transcript `ctxhook index` reads names no session the relay
// knows, yet its tool calls carry the tokens the relay injected: the
// pass redacts them all.
func KnownTokens(docs []string) []string {
	var out []string
	for _, d := range docs {
		var s struct {
			Tokens  map[string]string `json:"tokens"`
			Retired []string          `json:"retired"`
		}
		if json.Unmarshal([]byte(d), &s) != nil {
			continue
		}
		for _, v := range s.Tokens {
			out = append(out, v)
		}
		out = append(out, s.Retired...)
	}
	out = slices.DeleteFunc(out, func(v string) bool { return len(v) < minKnown })
	slices.Sort(out)
	out = slices.Compact(out)
	return out[:min(len(out), maxKnown)]
}

// knownEnviron hands known to the plugin as the hook path hands it the
// values of sensitive variables: each is redacted wherever it appears.
// The names are the plugin's business only; nothing is stored or echoed.
func knownEnviron(known []string) []string {
	env := make([]string, len(known))
	for i, v := range known {
		env[i] = "CTXHOOK_RELAY_" + strconv.Itoa(i) + "_TOKEN=" + v
	}
	return env
}

package cli

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

func runStats(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "stats", "[--session ID | --all] [--json]",
		"Summarise a session: events, bytes captured, tokens relayed, nudges fired.\nWithout flags: the most recent session.")
	session := flags.String("session", "", "this session id")
	all := flags.Bool("all", false, "every session together")
	asJSON := flags.Bool("json", false, "print JSON")
	if rest, code, ok := parse(flags, args); !ok {
		return code
	} else if len(rest) > 0 {
		return usageError(env, "stats", "unexpected argument %q", rest[0])
	}
	if *all && *session != "" {
		return usageError(env, "stats", "--all and --session name different things: give one")
	}
	st, code := openStore(env)
	if st == nil {
		return code
	}
	defer st.Close()
	id := *session
	if id == "" && !*all {
		recent, err := st.Sessions(1)
		if err != nil {
			return fail(env, "%v", err)
		}
		if len(recent) == 0 {
			fmt.Fprintln(env.Stdout, "no events captured yet")
			return 0
		}
		id = recent[0]
	}
	s, err := st.Stats(id)
	if err != nil {
		return fail(env, "%v", err)
	}
	if *asJSON {
		return writeJSON(env, s)
	}
	w := env.Stdout
	if id == "" {
		fmt.Fprintf(w, "all %s\n", plural(s.Sessions, "session", "sessions"))
	} else {
		fmt.Fprintf(w, "session %s\n", id)
	}
	if s.Events == 0 {
		fmt.Fprintln(w, "  no events")
		return 0
	}
	fmt.Fprintf(w, "  span            %s to %s\n", time.UnixMilli(s.FirstMS).Format("2006-01-02 15:04:05"), time.UnixMilli(s.LastMS).Format("15:04:05"))
	fmt.Fprintf(w, "  events          %d (%s)\n", s.Events, counts(s.ByCategory))
	if len(s.ByServer) > 0 {
		fmt.Fprintf(w, "  MCP servers     %s\n", counts(s.ByServer))
	}
	fmt.Fprintf(w, "  bytes captured  %d\n", s.BytesCaptured)
	fmt.Fprintf(w, "  tokens relayed  %d (captured %d)\n", s.Tallies[abi.TallyRelayed], s.Tallies[abi.TallyCapture])
	fmt.Fprintf(w, "  nudges fired    %d\n", s.Tallies[abi.TallyNudges])
	fmt.Fprintf(w, "  kept out        %d bytes of %s (shaped to head + pointer, the answer delivered)\n",
		s.BytesKeptOut, plural(s.Tallies[abi.TallyShaped], "response", "responses"))
	fmt.Fprintf(w, "  re-fetches      %d avoided (%s given; a hinted call that ran all the same is not counted)\n",
		s.RefetchesAvoided, plural(s.Tallies[abi.TallyRefetch], "hint", "hints"))
	if n := s.Tallies[abi.TallyExcluded]; n > 0 {
		fmt.Fprintf(w, "  not captured    %d (excluded by the capture settings: see ctxhook doctor)\n", n)
	}
	fmt.Fprintf(w, "  redactions      %d\n", s.Redactions)
	if s.Truncated > 0 {
		fmt.Fprintf(w, "  truncated       %d\n", s.Truncated)
	}
	return 0
}

func counts(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	out := ""
	for i, k := range keys {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%s %d", k, m[k])
	}
	return out
}

package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/ctxhook/ctxhook/host/internal/demo"
	"github.com/ctxhook/ctxhook/host/internal/paths"
)

func runDemo(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "demo", "[--keep]",
		"Replay a bundled recorded Claude Code session (two MCP servers, a rotating\nsession token) through ctxhook's real hooks into a temporary store, and\nreport what ctxhook did. Your own store and config are not touched.")
	keep := flags.Bool("keep", false, "keep the temporary store and print its CTXHOOK_HOME")
	if _, code, ok := parse(flags, args); !ok {
		return code
	}
	records, err := demo.Session()
	if err != nil {
		return fail(env, "%v", err)
	}
	home, err := os.MkdirTemp("", "ctxhook-demo-")
	if err != nil {
		return fail(env, "%v", err)
	}
	if !*keep {
		defer os.RemoveAll(home)
	}
	getenv := func(k string) string {
		if k == "CTXHOOK_HOME" {
			return home
		}
		return env.Getenv(k)
	}
	p, err := paths.Resolve(getenv)
	if err != nil {
		return fail(env, "%v", err)
	}
	// The compilation cache is worth sharing with the user's real one.
	if real, err := paths.Resolve(env.Getenv); err == nil {
		p.Cache = real.Cache
	}
	w := env.Stdout
	fmt.Fprintf(w, "ctxhook demo: replaying %d hook events recorded from Claude Code 2.1.330\n", len(records))
	fmt.Fprintf(w, "through the real hooks (plugin.wasm, SQLite store) in %s\n\n", home)
	rep, err := demo.Replay(ctx, p, records, getenv, w)
	if err != nil {
		return fail(env, "%v", err)
	}
	printDemoReport(w, env, rep)
	if *keep {
		fmt.Fprintf(w, "\nKept. Explore it with:\n  export CTXHOOK_HOME=%s\n  ctxhook stats; ctxhook search workflow; ctxhook show %d\n", home, firstID(rep))
	} else {
		fmt.Fprintf(w, "\nNext: wire ctxhook into your agent, then check it:\n  ctxhook install claude-code   (or codex, gemini, opencode, ...: ctxhook help install)\n  ctxhook doctor claude-code\n")
	}
	if rep.Relayed != rep.RelayNeeded || rep.RelayMatched != rep.Relayed {
		fmt.Fprintln(env.Stderr, "ctxhook: demo: the relay did not reproduce the recorded session")
		return 1
	}
	return 0
}

// printDemoReport prints what the replay did: the summary, a search of
// the store, a secret as sent and as kept, and any warnings.
func printDemoReport(w io.Writer, env Env, rep *demo.Report) {
	var servers []string
	for s, n := range rep.MCPCalls {
		servers = append(servers, fmt.Sprintf("%s %d", s, n))
	}
	sort.Strings(servers)
	nudges := make([]string, len(rep.NudgeCalls))
	for i, n := range rep.NudgeCalls {
		nudges[i] = fmt.Sprint(n)
	}
	if left := rep.ToolCalls - rep.Listed; left > 0 {
		fmt.Fprintf(w, "  (%d more tool calls were recorded with nothing else to show: not listed)\n", left)
	}
	fmt.Fprintf(w, "\nSummary\n")
	fmt.Fprintf(w, "  tool calls        %d (MCP: %s)\n", rep.ToolCalls, strings.Join(servers, ", "))
	fmt.Fprintf(w, "  tokens relayed    %d of %d calls the model sent without one; %d match what the server accepted\n", rep.Relayed, rep.RelayNeeded, rep.RelayMatched)
	fmt.Fprintf(w, "  tokens captured   %d\n", rep.TokensCaptured)
	fmt.Fprintf(w, "  events captured   %d (%d bytes of responses, full)\n", rep.Events, rep.BytesCaptured)
	fmt.Fprintf(w, "  secrets redacted  %d\n", rep.Redactions)
	if rep.MCPBytes > 0 {
		fmt.Fprintf(w, "  context saved     %d of %d MCP response bytes kept out of the model's context (%.0f%%): %d large responses shaped to head + pointer\n",
			rep.MCPBytes-rep.ContextBytes, rep.MCPBytes, 100*float64(rep.MCPBytes-rep.ContextBytes)/float64(rep.MCPBytes), rep.Shaped)
	}
	fmt.Fprintf(w, "  nudges fired      %d, on external MCP calls %s%s\n", len(rep.NudgeCalls), strings.Join(nudges, ", "), nudgeEvery(env, rep.NudgeCalls))
	fmt.Fprintf(w, "\n$ ctxhook search %s\n", rep.SampleQuery)
	for _, h := range rep.SampleHits {
		fmt.Fprintf(w, "  #%-4d %-22s %s\n", h.Event.ID, label(h.Event), h.Snippet)
	}
	if rep.SampleTotal > len(rep.SampleHits) {
		fmt.Fprintf(w, "  (%d of %d events shown)\n", len(rep.SampleHits), rep.SampleTotal)
	}
	if rep.Secret.Kept != "" {
		fmt.Fprintf(w, "\nA secret, as the server sent it and as the store keeps it (event #%d):\n", rep.Secret.Event)
		fmt.Fprintf(w, "  sent    %s\n  stored  %s\n", demo.Clip(rep.Secret.Sent, 100), demo.Clip(rep.Secret.Kept, 100))
	}
	if len(rep.Warnings) > 0 {
		fmt.Fprintf(w, "\nwarnings:\n  %s\n", strings.Join(rep.Warnings, "\n  "))
	}
}

// nudgeEvery says the period the replay showed (the plugin decides it:
// a CTXHOOK_NUDGE_EVERY it finds invalid gives the default), and whether
// that was the user's setting.
func nudgeEvery(env Env, calls []int) string {
	if len(calls) < 2 {
		return ""
	}
	n := calls[1] - calls[0]
	v := env.Getenv("CTXHOOK_NUDGE_EVERY")
	switch set, err := strconv.Atoi(strings.TrimSpace(v)); {
	case v == "":
		return fmt.Sprintf(" (every %d calls, the default)", n)
	case err == nil && set == n:
		return fmt.Sprintf(" (every %d calls, from CTXHOOK_NUDGE_EVERY)", n)
	default:
		return fmt.Sprintf(" (every %d calls: CTXHOOK_NUDGE_EVERY=%s is not a valid count, so the default)", n, v)
	}
}

func firstID(rep *demo.Report) int64 {
	if len(rep.SampleHits) > 0 {
		return rep.SampleHits[0].Event.ID
	}
	return 1
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/firing"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// runStatusline prints the session's figures in one short line, for
// Claude Code's status line (settings.json "statusLine", which install
// offers): Claude Code runs the command with the session's JSON on stdin
// and shows its first line. It never fails loudly: a status line with an
// error in it is worse than a quiet one.
func runStatusline(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "statusline", "[--session ID]",
		"Print the session's figures in one line: events captured, bytes kept out of\n"+
			"context, tokens relayed, re-fetches avoided. Claude Code's status line runs\n"+
			"it with the session's JSON on stdin (session_id); --session names one instead.")
	session := flags.String("session", "", "this session id (default: session_id from the JSON on stdin)")
	if _, code, ok := parse(flags, args); !ok {
		return code
	}
	id, transcript := *session, ""
	if id == "" && env.Stdin != nil {
		var in struct {
			SessionID  string `json:"session_id"`
			Transcript string `json:"transcript_path"`
		}
		b, _ := io.ReadAll(io.LimitReader(env.Stdin, 1<<20))
		json.Unmarshal(b, &in)
		id, transcript = in.SessionID, in.Transcript
	}
	if id == "" {
		fmt.Fprintln(env.Stdout, "ctxhook · no session")
		return 0
	}
	p, err := resolvePaths(env)
	if err != nil {
		fmt.Fprintln(env.Stdout, "ctxhook · "+err.Error())
		return 0
	}
	// The status line is Claude Code's (its statusLine setting).
	if firing.SessionQuiet(firing.Dir(p.Data), abi.HarnessClaudeCode, id, transcript, time.Now()) {
		fmt.Fprintln(env.Stdout, "ctxhook · hooks silent in this session: run 'ctxhook doctor "+abi.HarnessClaudeCode+"'")
		return 0
	}
	const unreadable = "ctxhook · store unreadable ('ctxhook doctor <harness>' says why)"
	st, err := store.Open(p.DB(), store.Options{ReadOnly: true})
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintln(env.Stdout, "ctxhook · nothing captured yet")
		return 0
	}
	if err != nil {
		fmt.Fprintln(env.Stdout, unreadable)
		return 0
	}
	defer st.Close()
	s, err := st.Stats(id)
	if err != nil {
		fmt.Fprintln(env.Stdout, unreadable)
		return 0
	}
	fmt.Fprintln(env.Stdout, statusLine(s))
	return 0
}

// statusLine is one session's figures, short, each only when it is not
// zero.
func statusLine(s store.Stats) string {
	if s.Events == 0 {
		return "ctxhook · nothing captured yet"
	}
	parts := []string{"ctxhook", plural(s.Events, "event", "events") + " captured"}
	if s.BytesKeptOut > 0 {
		parts = append(parts, humanBytes(s.BytesKeptOut)+" kept out of context")
	}
	if n := s.Tallies[abi.TallyRelayed]; n > 0 {
		parts = append(parts, plural(n, "token", "tokens")+" relayed")
	}
	if s.RefetchesAvoided > 0 {
		parts = append(parts, plural(s.RefetchesAvoided, "re-fetch", "re-fetches")+" avoided")
	}
	if n := s.Tallies[abi.TallyExcluded]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d not captured", n))
	}
	return strings.Join(parts, " · ")
}

// humanBytes is n in B, KB or MB (powers of 1024), one decimal above 1 KB.
func humanBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
}

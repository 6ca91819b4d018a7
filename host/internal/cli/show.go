package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/store"
)

func runShow(ctx context.Context, env Env, args []string) int {
	fs := newFlags(env, "show", "[--json] <id|key>", "Print one captured event in full (ids come from 'ctxhook search'; keys like e1a2b3c4d5e6f7a8b from shaped responses and hints).")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fs.Usage()
		return 2
	}
	ref := strings.TrimPrefix(pos[0], "#")
	if rest, ok := strings.CutPrefix(ref, "c"); ok && !isEventKey(ref) {
		return showChunk(env, rest, *asJSON)
	}
	if id, err := strconv.ParseInt(ref, 10, 64); (err == nil && id < 1) || (err != nil && !isEventKey(ref)) {
		return fail(env, "an event is named by a positive id (42) or a key (e1a2b3c4d5e6f7a8b), not %q", pos[0])
	}
	st, code := openStore(env)
	if st == nil {
		return code
	}
	defer st.Close()
	e, err := st.EventByRef(ref)
	if errors.Is(err, store.ErrNotFound) {
		return fail(env, "no event %s", ref)
	}
	if err != nil {
		return fail(env, "%v", err)
	}
	if *asJSON {
		return writeJSON(env, e)
	}
	w := env.Stdout
	fmt.Fprintf(w, "event      #%d", e.ID)
	if e.Key != "" {
		fmt.Fprintf(w, " (key %s)", e.Key)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "time       %s\n", time.UnixMilli(e.TimeMS).Format(time.RFC3339))
	fmt.Fprintf(w, "session    %s (%s)\n", e.Session, e.Harness)
	fmt.Fprintf(w, "hook       %s, category %s\n", e.HookEvent, e.Category)
	if e.Tool != "" {
		fmt.Fprintf(w, "tool       %s\n", e.Tool)
	}
	if e.Server != "" {
		fmt.Fprintf(w, "server     %s\n", e.Server)
	}
	fmt.Fprintf(w, "size       %d bytes captured", e.ResponseBytes)
	if e.Truncated {
		fmt.Fprint(w, " (truncated when stored)")
	}
	if e.Redactions > 0 {
		fmt.Fprintf(w, ", %s redacted", plural(int64(e.Redactions), "secret", "secrets"))
	}
	fmt.Fprintln(w)
	if e.Args != "" {
		fmt.Fprintf(w, "arguments  %s\n", e.Args)
	}
	fmt.Fprintln(w, "\n"+e.Body())
	return 0
}

// isEventKey reports whether s looks like a key the plugin gives events.
func isEventKey(s string) bool {
	if len(s) != 17 || s[0] != 'e' {
		return false
	}
	for _, c := range s[1:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// showChunk prints one transcript turn ("c12").
func showChunk(env Env, idText string, asJSON bool) int {
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id < 1 {
		return fail(env, "a transcript turn is named c and a positive number (c12), not c%s", idText)
	}
	st, code := openStore(env)
	if st == nil {
		return code
	}
	defer st.Close()
	c, err := st.ChunkByID(id)
	if errors.Is(err, store.ErrNotFound) {
		return fail(env, "no transcript turn c%d", id)
	}
	if err != nil {
		return fail(env, "%v", err)
	}
	if asJSON {
		return writeJSON(env, c)
	}
	w := env.Stdout
	fmt.Fprintf(w, "turn       #c%d\n", c.ID)
	fmt.Fprintf(w, "time       %s\n", time.UnixMilli(c.TimeMS).Format(time.RFC3339))
	fmt.Fprintf(w, "session    %s (%s)\n", c.Session, c.Harness)
	fmt.Fprintf(w, "transcript %s\n", c.Path)
	if c.Cwd != "" {
		fmt.Fprintf(w, "project    %s\n", c.Cwd)
	}
	fmt.Fprintf(w, "\n%s\n", c.Text)
	return 0
}

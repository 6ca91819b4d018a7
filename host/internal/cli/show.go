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
	fs := newFlags(env, "show", "[--json] <id>", "Print one captured event in full (ids come from 'ctxhook search').")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fs.Usage()
		return 2
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(pos[0], "#"), 10, 64)
	if err != nil || id < 1 {
		return fail(env, "event id must be a positive number, not %q", pos[0])
	}
	st, code := openStore(env)
	if st == nil {
		return code
	}
	defer st.Close()
	e, err := st.Event(id)
	if errors.Is(err, store.ErrNotFound) {
		return fail(env, "no event %d", id)
	}
	if err != nil {
		return fail(env, "%v", err)
	}
	if *asJSON {
		return writeJSON(env, e)
	}
	w := env.Stdout
	fmt.Fprintf(w, "event      #%d\n", e.ID)
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

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/hook"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// runIO serves hosts that run plugin.wasm in their own process (the
// OpenCode loader, the Claude Agent SDK adapter): they decide in-process
// and come here for ctxhook's state files and store, so what they capture
// lands where `ctxhook search` looks. Answers are one JSON object.
func runIO(ctx context.Context, env Env, args []string) int {
	const help = `Usage: ctxhook io load <key>...    print {"config": {...}, "state": {...}}, with
                                    "state_error" when state cannot be read
                                    and "warnings" when the config is bad
       ctxhook io apply             read a plugin's effects (a JSON array, or a
                                    HandleResponse) on stdin and apply them;
                                    print {"event_ids": [...], "warnings": [...]}
       ctxhook io replay            store what waits in the spool (big
                                    responses a hook spooled to answer sooner)

For hosts that run plugin.wasm in-process. Exit 0 with the error in the
answer whenever the request itself was understood.
`
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(env.Stderr, help)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	p, err := resolvePaths(env)
	if err != nil {
		return fail(env, "%v", err)
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false)
	switch args[0] {
	case "load":
		out := map[string]any{}
		cfg, err := config.Load(p.Config)
		if err != nil {
			out["warnings"] = []string{err.Error() + " (using defaults)"}
		}
		out["config"] = cfg
		if st, err := hook.ReadState(p, args[1:]); err != nil {
			out["state_error"] = err.Error()
		} else {
			out["state"] = st
		}
		enc.Encode(out)
		return 0
	case "apply":
		b, err := io.ReadAll(io.LimitReader(env.Stdin, hook.MaxInput+1))
		if err != nil || len(b) > hook.MaxInput {
			return fail(env, "io apply: cannot read effects (%v)", err)
		}
		var effects []abi.Effect
		if err := json.Unmarshal(b, &effects); err != nil {
			var resp abi.HandleResponse
			if err2 := json.Unmarshal(b, &resp); err2 != nil {
				return fail(env, "io apply: stdin is neither an effects array nor a HandleResponse: %v", err)
			}
			effects = resp.Effects
		}
		res := hook.Apply(p, effects)
		if res.StoreLater {
			storeLater()
		}
		ids := res.EventIDs
		if ids == nil {
			ids = []int64{}
		}
		warnings := res.Warnings
		if warnings == nil {
			warnings = []string{}
		}
		enc.Encode(map[string]any{"event_ids": ids, "warnings": warnings, "spooled": res.Spooled})
		return 0
	case "replay":
		st, err := store.Open(p.DB(), store.Options{})
		if err != nil {
			return fail(env, "io replay: %v", err)
		}
		n := hook.ReplaySpool(p, st)
		st.Close()
		enc.Encode(map[string]any{"files": n})
		return 0
	}
	fmt.Fprintf(env.Stderr, "ctxhook: io: unknown request %q\n\n%s", args[0], help)
	return 2
}

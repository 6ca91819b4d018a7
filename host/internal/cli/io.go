package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/daemon"
	"github.com/ctxhook/ctxhook/host/internal/engine"
	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/spool"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/wasmsum"
)

// ioHelp is `ctxhook io -h`.
const ioHelp = `Usage: ctxhook io load <key>...    print {"config": {...}, "state": {...}}, with
                                    "state_error" when state cannot be read
                                    and "warnings" when the config is bad
       ctxhook io apply             read a plugin's effects (a JSON array, or a
                                    HandleResponse) on stdin and apply them;
                                    print {"event_ids": [...], "warnings": [...]};
                                    with CTXHOOK_REQUEST_ID set, its events are
                                    stored once however often it is applied
       ctxhook io socket            print {"socket": ..., "handshake": ...,
                                    "wasm_sha256": ..., "daemon_bin": ...}: where
                                    this binary's daemon listens, the build id
                                    its requests must start with, the sha256 of
                                    the plugin.wasm it runs, and the binary to
                                    start it with ("daemon_bin daemon")
       ctxhook io replay            store what waits in the spool (big
                                    responses a hook spooled to answer sooner)

For hosts that run plugin.wasm in-process. Exit 0 with the error in the
answer whenever the request itself was understood.
`

// runIO serves hosts that run plugin.wasm in their own process (the
// OpenCode loader, the Claude Agent SDK adapter): they decide in-process
// and come here for ctxhook's state files and store, so what they capture
// lands where `ctxhook search` looks. Answers are one JSON object.
//
// They may also ask this binary's daemon instead (io socket): one round
// trip on a kept connection, where load and apply cost a process each.
func runIO(ctx context.Context, env Env, args []string) int {
	if len(args) == 0 {
		return usageError(env, "io", "name what to do: load, apply or socket")
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(env.Stdout, ioHelp) // asked for: stdout, as every command's help
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
		enc.Encode(ioLoad(p, args[1:]))
		return 0
	case "apply":
		return ioApply(env, p, enc)
	case "socket":
		enc.Encode(socketInfo(p))
		return 0
	case "replay":
		st, err := store.Open(p.DB(), store.Options{})
		if err != nil {
			return fail(env, "io replay: %v", err)
		}
		n := spool.ReplayAll(p, st, func(w string) { fmt.Fprintln(env.Stderr, "ctxhook: "+w) })
		st.Close()
		enc.Encode(map[string]any{"files": n})
		return 0
	}
	fmt.Fprintf(env.Stderr, "ctxhook: io: unknown request %q\n\n%s", args[0], ioHelp)
	return 2
}

// ioLoad is `ctxhook io load <key>...`: the config and the state of keys.
func ioLoad(p paths.Paths, keys []string) map[string]any {
	out := map[string]any{}
	cfg, err := config.Load(p.Config)
	if err != nil {
		out["warnings"] = []string{err.Error()}
	}
	out["config"] = cfg
	if st, err := engine.ReadState(p, keys); err != nil {
		out["state_error"] = err.Error()
	} else {
		out["state"] = st
	}
	return out
}

// ioApply is `ctxhook io apply`: the effects on stdin, applied.
func ioApply(env Env, p paths.Paths, enc *json.Encoder) int {
	b, err := io.ReadAll(io.LimitReader(env.Stdin, engine.MaxInput+1))
	if err != nil || len(b) > engine.MaxInput {
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
	res := engine.Apply(p, effects, env.Getenv(hookproto.EnvRequestID))
	if res.StoreLater {
		storeLater(env)
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
}

// socketInfo is what a host needs to ask the daemon itself (io socket).
// A host that runs a plugin.wasm other than wasm_sha256 must not: the
// daemon would decide with other code than its own in-process fallback.
func socketInfo(p paths.Paths) map[string]string {
	bin, err := os.Executable()
	if err != nil {
		bin = "ctxhook" // on PATH, as the JS host's default
	}
	return map[string]string{"socket": p.Socket(), "handshake": daemon.BuildID(), "wasm_sha256": wasmsum.SHA256, "daemon_bin": bin}
}

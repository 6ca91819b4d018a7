package engine

import (
	"context"
	"os"
	"slices"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/ownsecrets"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/state"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// In-process hosts (the OpenCode loader, the Agent SDK adapter) run the
// plugin themselves but have no SQLite and no file locks of ctxhook's.
// They reach the same state files and store through `ctxhook io`, which
// is these two functions.

// ReadState returns the stored values of keys (absent keys are left out).
func ReadState(p paths.Paths, keys []string) (map[string]string, error) {
	sd, err := state.Open(p.StateDir())
	if err != nil {
		return nil, err
	}
	unlock, err := sd.Lock(keys, 2*time.Second)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return sd.Read(keys)
}

// Apply carries out effects a plugin returned to another host, exactly as
// a hook process does: state under the lock, events to the store or the
// spool. The result lists the stored event ids and any warnings. request
// names the hook (hookproto.EnvRequestID), or is "": a host that asked the
// daemon first and decides in-process after all gives both the same
// name, so the events are stored once if the daemon stored them too.
func Apply(p paths.Paths, effects []abi.Effect, request string) Result {
	var res Result
	e := &Engine{Paths: p, sink: Store}
	var keys []string
	for _, eff := range effects {
		if eff.Op == abi.OpSetState {
			keys = append(keys, eff.Key)
		}
	}
	sd, err := state.Open(p.StateDir())
	var unlock func()
	if err == nil {
		unlock, err = sd.Lock(keys, 2*time.Second)
	}
	if err != nil {
		res.Warnings = append(res.Warnings, err.Error())
	}
	e.apply(&res, Request{ID: request}, sd, unlock, effects)
	// Transcripts are cut into turns by the plugin: a host that asks for
	// one to be indexed (a Stop) gets the plugin loaded here for that.
	if slices.ContainsFunc(effects, func(eff abi.Effect) bool { return eff.Op == abi.OpIndexTranscript }) {
		e.indexWithPlugin(&res, effects)
	}
	return res
}

// indexWithPlugin loads the plugin to run indexTranscripts.
func (e *Engine) indexWithPlugin(res *Result, effects []abi.Effect) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := runner.New(ctx, runner.Options{CacheDir: e.Paths.WasmCache()})
	if err != nil {
		res.Warnings = append(res.Warnings, "transcript not indexed: "+err.Error())
		return
	}
	defer r.Close(context.Background())
	e.runner = r
	cfg, _ := e.config()
	e.indexTranscripts(ctx, res, cfg, effects, ownsecrets.Gather(e.Paths, ownsecrets.Hook, os.Getenv))
}

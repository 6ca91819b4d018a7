package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/engine"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/retrievalcorpus"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// ingested is the store the corpus went into, and what it holds.
type ingested struct {
	db   string
	keys map[int64]string // event id: the record's key
	docs []doc            // what the store keeps of each event, for the baseline
	lost int              // facts no longer in their event's stored text
}

// doc is one stored event as the baseline indexes it.
type doc struct {
	id         int64
	args, text string
}

// ingest records every record as a Claude Code PostToolUse hook through
// engine.Engine, as a daemon runs it (one warm plugin, the store kept
// open), in a CTXHOOK_HOME of its own; cache holds the plugin's
// compilation cache across runs.
func ingest(ctx context.Context, home, cache string, c *retrievalcorpus.Corpus) (*ingested, error) {
	p := paths.Paths{Data: filepath.Join(home, "state"), Cache: cache, Config: filepath.Join(home, "config", "config.toml")}
	if err := paths.EnsureDir(p.Data); err != nil {
		return nil, err
	}
	getenv := func(k string) string {
		if k == "CTXHOOK_HOME" {
			return home
		}
		return ""
	}
	// As the daemon runs the plugin: compiled without interruption
	// checks (it has a watchdog; a benchmark run has its operator).
	eng, err := engine.NewEngineWith(ctx, p, getenv, runner.Options{NoInterrupt: true}, engine.KeptStore)
	if err != nil {
		return nil, err
	}
	eng.Environ = func() []string { return nil }
	ing := &ingested{db: p.DB(), keys: map[int64]string{}}
	for _, r := range c.Records {
		eng.Now = func() time.Time { return time.UnixMilli(r.TimeMS) }
		res, err := eng.Do(ctx, "", abi.HarnessClaudeCode, "PostToolUse", claudePayload(r))
		if err == nil && len(res.EventIDs) != 1 {
			err = fmt.Errorf("stored as %d events (%v)", len(res.EventIDs), res.Warnings)
		}
		if err != nil {
			eng.Close(ctx)
			return nil, fmt.Errorf("%s: %w", r.Key, err)
		}
	}
	if err := eng.Close(ctx); err != nil {
		return nil, err
	}
	return ing, ing.readBack(c)
}

// reuse is the store an earlier run built in home, as it is.
func reuse(home string, c *retrievalcorpus.Corpus) (*ingested, error) {
	ing := &ingested{db: filepath.Join(home, "state", "ctxhook.db"), keys: map[int64]string{}}
	return ing, ing.readBack(c)
}

// claudePayload is the PostToolUse payload Claude Code sends for r:
// tool_response is the result's content blocks.
func claudePayload(r retrievalcorpus.Record) []byte {
	server, _, _ := strings.Cut(strings.TrimPrefix(r.Tool, "mcp__"), "__")
	b, _ := json.Marshal(map[string]any{
		"session_id": r.Session, "transcript_path": "/nonexistent/" + r.Session + ".jsonl", "cwd": "/work/shop",
		"permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": r.Tool,
		"tool_input": r.Args, "tool_use_id": toolUseID(r),
		"mcp_server": map[string]string{"name": server, "source": "user"}, "tool_response": r.Content(),
	})
	return b
}

// toolUseID is the id Claude Code would give r's call: made from its
// key, so that the stored event leads back to the record.
func toolUseID(r retrievalcorpus.Record) string {
	return "toolu_" + strings.NewReplacer("/", "_", "#", "_").Replace(r.Key)
}

// readBack reads every event's whole stored text (as the store keeps it,
// redacted) for the baseline, and counts the facts redaction took.
func (ing *ingested) readBack(c *retrievalcorpus.Corpus) error {
	st, err := store.Open(ing.db, store.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer st.Close()
	byID := map[string]retrievalcorpus.Record{}
	for _, r := range c.Records {
		byID[toolUseID(r)] = r
	}
	_, last, _, err := st.IndexState()
	if err != nil {
		return err
	}
	for id := int64(1); id <= last; id++ {
		e, err := st.Event(id)
		if err != nil {
			return err
		}
		r, ok := byID[e.ToolUseID]
		if !ok && strings.Contains(e.ToolUseID, "[REDACTED") && int(id) <= len(c.Records) {
			// The id was taken for a credential by redaction: the records
			// are stored one event each, in order.
			r, ok = c.Records[id-1], true
		}
		if !ok {
			return fmt.Errorf("event %d (%s) is no record of the corpus", id, e.ToolUseID)
		}
		ing.keys[id] = r.Key
		var b strings.Builder
		if _, err := st.WriteBody(&b, id, e.BodyField()); err != nil {
			return err
		}
		text := b.String()
		ing.docs = append(ing.docs, doc{id: id, args: e.Args, text: text})
		lower := strings.ToLower(text)
		for _, f := range r.Facts {
			if !strings.Contains(lower, strings.ToLower(f.Value)) {
				ing.lost++
			}
		}
	}
	return nil
}

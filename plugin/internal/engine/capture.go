package engine

import (
	"encoding/json"
	"path"
	"slices"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/redact"
)

// captureOff: the hook's environment turns capture off (CTXHOOK_CAPTURE).
func (d *decision) captureOff() bool {
	switch strings.ToLower(strings.TrimSpace(d.req.Env[abi.EnvCapture])) {
	case "0", "false", "off", "no":
		return true
	}
	c := d.req.Config.Capture
	return c.Enabled != nil && !*c.Enabled
}

// excluding: any capture setting keeps something out of the store.
func (d *decision) excluding() bool {
	c := d.req.Config.Capture
	if d.captureOff() || len(c.ExcludeTools) > 0 || len(c.ExcludeCategories) > 0 {
		return true
	}
	for _, s := range d.req.Config.Servers {
		if s.Capture != nil && !*s.Capture {
			return true
		}
	}
	return false
}

// excluded says whether the capture settings keep ev's body out of the
// store: capture off, its server's capture off, its category or its tool
// excluded.
func (d *decision) excluded(ev *abi.Event) bool {
	if d.captureOff() {
		return true
	}
	c := d.req.Config.Capture
	if s, ok := d.req.Config.Servers[ev.Server]; ok && ev.Server != "" && s.Capture != nil && !*s.Capture {
		return true
	}
	if slices.Contains(c.ExcludeCategories, ev.Category) {
		return true
	}
	for _, pat := range c.ExcludeTools {
		if ok, err := path.Match(pat, ev.Tool); err == nil && ok && ev.Tool != "" {
			return true
		}
	}
	return false
}

// storeExcluded records what an excluded call leaves: a row of metadata
// (no args, no response, no text: its size only), or nothing.
func (d *decision) storeExcluded(ev *abi.Event, size int) {
	d.tally(abi.TallyExcluded)
	ev.Args, ev.Response, ev.Text, ev.ResponseForm = "", "", "", abi.ResponseFormExcluded
	ev.ResponseBytes = size
	if d.req.Config.Capture.Excluded == abi.ExcludedNothing {
		return
	}
	d.storeEvent(ev)
}

// isExcluded: ev is the row an excluded call left (or would have).
func isExcluded(ev *abi.Event) bool { return ev.ResponseForm == abi.ResponseFormExcluded }

// forModel is, with [redact] model = true, the text the model gets in
// place of an MCP result (its readable text, or the shaped head when
// replacement is one) when anything in it is a secret: each relayed token
// as TokenPlaceholder, every other secret redacted as stored text is.
// "" leaves the replacement as it was.
func (d *decision) forModel(readable json.RawMessage, replacement string) string {
	if !d.req.Config.Redact.Model {
		return ""
	}
	text := replacement
	if text == "" {
		text = d.readableText(readable)
		if text == "" {
			text = string(readable)
		}
	}
	red, n := d.redactForModelText(text)
	if n == 0 {
		return ""
	}
	return red
}

// redactForModelText redacts text for the model: every secret as stored
// text is, except that a relayed token (a known value) becomes the
// placeholder, so the model knows ctxhook holds it, and a placeholder
// already there (the proxy's) stays one, under a sensitive key too.
func (d *decision) redactForModelText(text string) (string, int) {
	spans, n := d.redactor().Spans(text)
	if n == 0 {
		return text, 0
	}
	known := d.state.known()
	kept := spans[:0]
	for _, sp := range spans {
		switch v := text[sp.Start:sp.End]; {
		case v == abi.TokenPlaceholder:
			continue
		case slices.Contains(known, v):
			sp.Repl = abi.TokenPlaceholder
		}
		kept = append(kept, sp)
	}
	if len(kept) == 0 {
		return text, 0
	}
	var b strings.Builder
	redact.WriteSpans(&b, text, kept)
	return b.String(), n
}

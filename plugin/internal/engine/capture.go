package engine

import (
	"path"
	"slices"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/abi"
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

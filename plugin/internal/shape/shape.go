// Package shape decides how much of a large MCP response reaches the
// model. Above a threshold the model gets the response's head and a
// one-line pointer to the stored event; the whole response stays one call
// away (get_event, search). It also names calls, so that a repeat of an
// answered call can be pointed at the stored answer.
package shape

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/jsonfast"
	"github.com/ctxhook/ctxhook/plugin/modeltext"
)

// Threshold returns the size above which server's responses are shaped,
// or 0 when they never are.
func Threshold(cfg abi.Config, server string) int {
	t := cfg.Shaping.ThresholdBytes
	if s, ok := cfg.Servers[server]; ok && s.ShapeBytes != 0 {
		t = s.ShapeBytes
	}
	switch {
	case t < 0:
		return 0
	case t == 0:
		return abi.DefaultShapeThreshold
	}
	return t
}

// HeadBytes returns how much text the model keeps.
func HeadBytes(cfg abi.Config) int {
	if h := cfg.Shaping.HeadBytes; h > 0 {
		return h
	}
	return abi.DefaultShapeHead
}

// Head returns at most max bytes of text, cut at the last line break in
// its second half when there is one (a cut mid-line reads as an error),
// else at a UTF-8 boundary.
func Head(text string, max int) string {
	if len(text) <= max {
		return text
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(text[:cut], '\n'); nl >= max/2 {
		cut = nl
	}
	return text[:cut]
}

// Shaped is what the model gets instead of a response of total bytes.
func Shaped(text string, max int, key string, total int) string {
	head := Head(text, max)
	key = modeltext.Name(key) // a key is ctxhook's own, but text for the model is escaped all the same
	return head + "\n\n[ctxhook: showing " + strconv.Itoa(len(head)) + " of " + strconv.Itoa(total) +
		" bytes to save context. The full response is stored as event " + key +
		": call ctxhook's get_event with id \"" + key + "\" (or run `ctxhook show " + key + "`), or search it.]"
}

// Key names an event from the facts that make it unique, before the store
// gives it an id (abi.EventKey, which hosts compute too).
func Key(parts ...string) string { return abi.EventKey(parts...) }

// CallHash names a call by server, tool and arguments, ignoring the
// arguments in ignore (the relay's token) and key order, so a repeat of an
// answered call is recognised whatever the model typed around it.
func CallHash(server, tool string, args json.RawMessage, ignore ...string) string {
	var v any
	if len(args) > 0 {
		var err error
		if v, err = jsonfast.Decode(args); err != nil {
			return ""
		}
	}
	if m, ok := v.(map[string]any); ok {
		for _, k := range ignore {
			delete(m, k)
		}
	}
	canon, _ := json.Marshal(v) // map keys come out sorted
	return Key(server, tool, string(canon))
}

// RefetchHint tells the model an identical call was answered before.
func RefetchHint(key string) string {
	key = modeltext.Name(key)
	return "ctxhook: this exact call was already answered in this session; the response is stored as event " + key +
		". get_event with id \"" + key + "\" returns it without calling the server again (the call still runs if you go ahead)."
}

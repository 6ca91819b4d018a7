// Package mcpmsg reads and rewrites MCP JSON-RPC messages for the proxy
// dialect. It keeps every field it does not touch as raw bytes, so a
// rewritten message differs from the original only where ctxhook changed
// it (object keys come out sorted; JSON-RPC does not care about order).
//
// Messages can be tens of MiB (a tool result), so nothing here runs a
// whole message through encoding/json: objects are split into raw members
// in one pass (jsonfast.Object) and written back with their members' bytes
// as they came.
package mcpmsg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ctxhook/ctxhook/plugin/internal/jsonfast"
)

// ErrMessage wraps every parse failure.
var ErrMessage = errors.New("mcpmsg: bad message")

// Object is a JSON object held as raw members.
type Object map[string]json.RawMessage

// ParseObject decodes raw as an object.
func ParseObject(raw json.RawMessage) (Object, error) { return parseObjectIn(nil, raw) }

// parseObjectIn is ParseObject through e (may be nil), which learns the
// message's structure once and splits what it already checked without
// checking it again: a 16 MiB result is otherwise validated once per
// level it is split at.
func parseObjectIn(e *jsonfast.Expander, raw json.RawMessage) (Object, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("%w: not an object", ErrMessage)
	}
	if members, ok := e.Object(raw); ok {
		o := make(Object, len(members))
		for _, m := range members {
			o[m.Key] = m.Value // a repeated key: the last wins, as with Unmarshal
		}
		return o, nil
	}
	// A key with an escape, or invalid JSON: encoding/json decides, and
	// gives the error.
	var o Object
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMessage, err)
	}
	return o, nil
}

// Raw encodes the object: keys sorted, each member's bytes as they are
// (they came from a parse or from Set, so they are valid JSON).
func (o Object) Raw() json.RawMessage {
	keys := make([]string, 0, len(o))
	n := 2
	for k, v := range o {
		keys = append(keys, k)
		n += len(k) + len(v) + 4
	}
	slices.Sort(keys)
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonfast.AppendString(b, k)
		b = append(b, ':')
		b = append(b, o[k]...)
	}
	return append(b, '}')
}

// Len is len(o.Raw()), counted without writing it out.
func (o Object) Len() int {
	n := 2 + max(len(o)-1, 0) // the braces and the commas
	for k, v := range o {
		n += len(jsonfast.AppendString(nil, k)) + 1 + len(v)
	}
	return n
}

// Clone returns a shallow copy (members are immutable raw bytes).
func (o Object) Clone() Object {
	c := make(Object, len(o))
	for k, v := range o {
		c[k] = v
	}
	return c
}

// String returns a member that is a JSON string, or "".
func (o Object) String(k string) string {
	s, _ := jsonfast.String(bytes.TrimSpace(o[k]))
	return s
}

// Child returns a member that is an object, or nil.
func (o Object) Child(k string) Object {
	c, err := ParseObject(o[k])
	if err != nil {
		return nil
	}
	return c
}

// Set replaces a member with the JSON encoding of v (raw bytes as is).
func (o Object) Set(k string, v any) {
	if raw, ok := v.(json.RawMessage); ok {
		o[k] = raw
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	o[k] = b
}

// Call is a tools/call request.
type Call struct {
	Msg    Object
	Params Object
	Tool   string
	Args   json.RawMessage
}

// ParseCall reads a tools/call request; ok is false for any other message.
func ParseCall(raw json.RawMessage) (c Call, ok bool, err error) { return ParseCallIn(nil, raw) }

// ParseCallIn is ParseCall through e (see ParseResultIn).
func ParseCallIn(e *jsonfast.Expander, raw json.RawMessage) (c Call, ok bool, err error) {
	msg, err := parseObjectIn(e, raw)
	if err != nil {
		return c, false, err
	}
	if msg.String("method") != "tools/call" || len(msg["id"]) == 0 {
		return c, false, nil
	}
	params := msg.Child("params")
	if params == nil {
		return c, false, fmt.Errorf("%w: tools/call without params object", ErrMessage)
	}
	args := params["arguments"]
	if len(args) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage("{}")
	}
	return Call{Msg: msg, Params: params, Tool: params.String("name"), Args: args}, true, nil
}

// Result is a response to a tools/call: either Result or Error is set.
type Result struct {
	Msg    Object
	Result Object
	// Raw is the result as it came, for a reader of the whole of it:
	// Result.Raw() would write out (copy) what may be tens of MiB.
	Raw   json.RawMessage
	Error json.RawMessage
}

// ParseResult reads a JSON-RPC response.
func ParseResult(raw json.RawMessage) (Result, error) { return ParseResultIn(nil, raw) }

// ParseResultIn is ParseResult through e (may be nil): the message is
// checked as JSON once, or not at all when e knows it valid already, and
// e learns where its long strings end for the reads that follow.
func ParseResultIn(e *jsonfast.Expander, raw json.RawMessage) (Result, error) {
	msg, err := parseObjectIn(e, raw)
	if err != nil {
		return Result{}, err
	}
	r := Result{Msg: msg}
	if errv, ok := msg["error"]; ok {
		r.Error = errv
		return r, nil
	}
	if res, err := parseObjectIn(e, msg["result"]); err == nil {
		r.Result, r.Raw = res, bytes.TrimSpace(msg["result"])
	}
	if r.Result == nil {
		return r, fmt.Errorf("%w: response without result or error", ErrMessage)
	}
	return r, nil
}

// InputRequired reports an interim result that asks the client for input
// before the call is retried (resultType "input_required", MCP
// 2026-07-28): not the call's answer.
func (r Result) InputRequired() bool {
	return r.Result != nil && bytes.Equal(bytes.TrimSpace(r.Result["resultType"]), []byte(`"input_required"`))
}

// IsError reports a tool-level error (result.isError true).
func (r Result) IsError() bool {
	return r.Error != nil || bytes.Equal(bytes.TrimSpace(r.Result["isError"]), []byte("true"))
}

// StripToken removes a token from a result: the key under _meta that held
// it, then every other occurrence in the result (a JSON text block, the
// structured content, a key) replaced by placeholder. It returns the new
// result and whether anything changed; err (nil but in theory) says the
// replacement left a member that is not JSON, and the result must not go
// out.
//
// It works member by member on the raw values: only a member that holds
// the token is rewritten, so a 64 MiB text block under a token that sits
// in _meta alone is neither copied nor parsed again. result itself is not
// modified.
func StripToken(result Object, token, metaKey, placeholder string) (out Object, changed bool, err error) {
	if token == "" {
		return result, false, nil
	}
	enc := jsonfast.AppendString(nil, token)
	inner := enc[1 : len(enc)-1]
	ph := jsonfast.AppendString(nil, placeholder)
	phInner := ph[1 : len(ph)-1]
	out = result
	write := func() { // copy on the first change
		if !changed {
			out, changed = result.Clone(), true
		}
	}
	if meta := result.Child("_meta"); meta != nil {
		kept := meta.Clone()
		for k := range meta {
			if k == metaKey || meta.String(k) == token {
				delete(kept, k)
			}
		}
		if len(kept) < len(meta) {
			write()
			if out["_meta"] = kept.Raw(); len(kept) == 0 {
				delete(out, "_meta")
			}
		}
	}
	for _, k := range slices.Collect(maps.Keys(out)) {
		v := out[k]
		if bytes.Contains(v, inner) {
			write()
			if v = bytes.ReplaceAll(v, inner, phInner); !json.Valid(v) {
				return nil, true, fmt.Errorf("%w: member %q is not JSON once the token is hidden", ErrMessage, k)
			}
			out[k] = v
		}
		if strings.Contains(k, token) {
			write()
			delete(out, k)
			out[strings.ReplaceAll(k, token, placeholder)] = v
		}
	}
	return out, changed, nil
}

// Package payload holds what every hook dialect's parser shares: the error
// all parse failures wrap, the first checks on raw input, and an encoder
// that writes JSON exactly as harnesses read it (no HTML escaping).
package payload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrPayload wraps every parse failure of every dialect, so hosts can tell
// "bad input" from "ctxhook failed" with errors.Is.
var ErrPayload = errors.New("bad hook payload")

// bom is the UTF-8 byte order mark, which Windows tools (PowerShell's
// redirections among them) put before a JSON text.
var bom = []byte("\xef\xbb\xbf")

// Clean drops a leading UTF-8 byte order mark: JSON forbids it, and a
// payload written on Windows may start with one. Its line ends (CRLF) are
// JSON whitespace already.
func Clean(raw []byte) []byte { return bytes.TrimPrefix(raw, bom) }

// Decode checks that raw is one JSON object and decodes it into v.
func Decode(raw []byte, v any) error {
	raw = bytes.TrimSpace(Clean(raw))
	if len(raw) == 0 {
		return fmt.Errorf("%w: empty input", ErrPayload)
	}
	if raw[0] != '{' {
		return fmt.Errorf("%w: not a JSON object", ErrPayload)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%w: %v", ErrPayload, err)
	}
	return nil
}

// ObjectOrAbsent fails unless raw is absent, null or a JSON object: a
// tool input of any other shape cannot take an injected argument.
func ObjectOrAbsent(raw json.RawMessage, field string) error {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("%w: %s is not an object", ErrPayload, field)
	}
	return nil
}

// Encode writes v as one line of JSON, newline-terminated, with <, > and &
// left as they are.
func Encode(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only RawMessage fields can fail, and they come from a parser.
		panic(err)
	}
	return b.String()
}

package jsonfast

import "github.com/ctxhook/ctxhook/plugin/abi"

// AppendString appends s to dst as a JSON string token: abi's one
// encoding (abi.AppendJSONString), which escapes only what JSON requires,
// so a string decodes to exactly s (with invalid UTF-8 as U+FFFD, as
// encoding/json writes it).
func AppendString(dst []byte, s string) []byte { return abi.AppendJSONString(dst, s) }

package firing

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"unicode/utf8"
)

// TopString returns the string value of key among the TOP-LEVEL keys of
// the JSON object that b begins, or "" (no such key before b ends, not a
// string, not an object). b may be cut off: the scan stops where it
// does. Nested values are skipped whole: a tool's input or output may
// carry any key (a relayed token under "session_id", a hostile
// "transcript_path"), and only the harness writes the top level.
func TopString(b []byte, key string) string {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ""
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return "" // '}', cut off or not JSON
		}
		end := skipString(b, i)
		if end < 0 {
			return ""
		}
		k, ok := decodeString(b[i:end])
		i = skipSpace(b, end)
		if !ok || i >= len(b) || b[i] != ':' {
			return ""
		}
		i = skipSpace(b, i+1)
		if k == key {
			if i >= len(b) || b[i] != '"' {
				return ""
			}
			end = skipString(b, i)
			if end < 0 {
				return ""
			}
			v, _ := decodeString(b[i:end])
			return v
		}
		if i = skipValue(b, i); i < 0 {
			return ""
		}
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != ',' {
			return ""
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index after the string that opens at b[i]
// (a '"'), or -1 when b ends first.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the index after the value that starts at b[i], or
// -1 when b ends first. Objects and arrays are skipped by depth, their
// strings whole; a malformed value is found out by the caller's next
// expectation.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				i--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && bytes.IndexByte([]byte(",}] \t\r\n"), b[j]) < 0 {
		j++
	}
	if j == i || j == len(b) {
		return -1
	}
	return j
}

func decodeString(raw []byte) (string, bool) {
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// HashID is what the records keep of a session id: enough to match it
// with a transcript's, nothing to hand on (a payload's session field
// is the harness's, but a record is read by tools that print it).
func HashID(id string) string {
	if id == "" {
		return ""
	}
	h := sha256.Sum256([]byte("ctxhook-fired\x00" + id))
	return hex.EncodeToString(h[:16])
}

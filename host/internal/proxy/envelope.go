package proxy

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// envelope is what the proxy reads of every JSON-RPC message: its id and
// method. A result may be tens of MiB; decoding it into a struct only to
// find these two would copy and scan it once more per message.
type envelope struct {
	ID     json.RawMessage
	Method string
}

// parseEnvelope reads the id and method of m, a JSON object: values are
// skipped by their brackets and quotes, not validated. On valid JSON it
// reads what encoding/json reads (FuzzEnvelope); on anything else it
// reads something or fails, and the caller checks the message before
// forwarding it (a result it asks the plugin about, the plugin checks).
// When it fails, env holds what it read before (a cut-off answer's id).
// ok is false when m is not an object, or its id or method are not of
// their JSON-RPC types. A key with an escape is unescaped, as the plugin
// and encoding/json read it: "i\u0064" is the id, so a server cannot make
// the proxy read one id (and key its pointer by it) and the plugin
// another.
func parseEnvelope(m []byte) (env envelope, ok bool) {
	i := skipWS(m, 0)
	if i >= len(m) || m[i] != '{' {
		return env, false
	}
	i++
	for {
		i = skipWS(m, i)
		if i >= len(m) {
			return env, false
		}
		if m[i] == '}' {
			return env, true
		}
		if m[i] == ',' {
			i++
			continue
		}
		if m[i] != '"' {
			return env, false
		}
		kEnd := stringEnd(m, i)
		if kEnd < 0 {
			return env, false
		}
		key, kok := memberName(m[i : kEnd+1])
		if !kok {
			return env, false
		}
		i = skipWS(m, kEnd+1)
		if i >= len(m) || m[i] != ':' {
			return env, false
		}
		i = skipWS(m, i+1)
		vEnd := valueEnd(m, i)
		if vEnd < 0 {
			return env, false
		}
		switch key {
		case "id":
			env.ID = json.RawMessage(m[i:vEnd:vEnd])
		case "method":
			if string(m[i:vEnd]) == "null" {
				env.Method = ""
				break
			}
			if m[i] != '"' {
				return env, false
			}
			s, err := strconv.Unquote(string(m[i:vEnd]))
			if err != nil {
				if json.Unmarshal(m[i:vEnd], &s) != nil {
					return env, false
				}
			}
			env.Method = s
		}
		i = vEnd
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index of the quote closing the string at b[i], or -1.
// It jumps from quote to quote (bytes.IndexByte), counting the
// backslashes before each: a result's text is one string of many MiB, and
// a byte-by-byte loop cost a few ms per MiB.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		n := 0 // backslashes just before the quote
		for q-n-1 > i && b[q-n-1] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q
		}
		j = q + 1
	}
	return -1
}

// valueEnd is the index just past the value starting at b[i], or -1.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		if e := stringEnd(b, i); e >= 0 {
			return e + 1
		}
		return -1
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := stringEnd(b, j)
				if e < 0 {
					return -1
				}
				j = e
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// memberName is the JSON string q (quotes included) as a member name:
// unescaped when it holds an escape. ok is false when it is not a valid
// JSON string.
func memberName(q []byte) (name string, ok bool) {
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q[1 : len(q)-1]), true
	}
	return name, json.Unmarshal(q, &name) == nil
}

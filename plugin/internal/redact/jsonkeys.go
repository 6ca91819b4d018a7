package redact

import "strings"

// sensitiveWords end a JSON key whose value is a secret ("session_token",
// "db_password", "X-Api-Key"). The key must end with one of them, so
// "max_tokens" or "token_count" are left alone.
var sensitiveWords = []string{"password", "passwd", "pwd", "secret", "token", "apikey", "api_key", "api-key",
	"accesskey", "access_key", "access-key", "privatekey", "private_key", "private-key", "authorization",
	"cookie", "credential", "credentials", "sessionid", "session_id", "session-id"}

func sensitiveKey(key string) bool {
	if key == "" || len(key) > 128 {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	k := strings.ToLower(key)
	for _, w := range sensitiveWords {
		if strings.HasSuffix(k, w) {
			return true
		}
	}
	return false
}

// jsonKeys replaces the string value of every sensitive key, at the top
// level of JSON text (quote `"`) and one level down, inside a JSON string
// that itself holds JSON (quote `\"`). It is a tolerant scanner, not a
// parser: it works on any text and never fails, so a truncated or
// malformed document is still redacted as far as it goes.
func jsonKeys(s string) (string, int) {
	if !strings.Contains(s, `"`) {
		return s, 0
	}
	out, n := scanKeys(s, `"`)
	if strings.Contains(out, `\"`) {
		var m int
		out, m = scanKeys(out, `\"`)
		n += m
	}
	return out, n
}

func scanKeys(s, q string) (string, int) {
	var b strings.Builder
	n, last, i := 0, 0, 0
	for {
		j := strings.Index(s[i:], q)
		if j < 0 {
			break
		}
		keyStart := i + j + len(q)
		keyEnd, ok := stringEnd(s, keyStart, q)
		if !ok {
			break
		}
		i = keyEnd + len(q)
		if !sensitiveKey(s[keyStart:keyEnd]) {
			continue
		}
		// optional space, a colon, optional space, an opening quote
		k := skipSpace(s, i)
		if k >= len(s) || s[k] != ':' {
			continue
		}
		k = skipSpace(s, k+1)
		if !strings.HasPrefix(s[k:], q) {
			continue
		}
		valStart := k + len(q)
		valEnd, ok := stringEnd(s, valStart, q)
		if !ok {
			valEnd = len(s) // unterminated: redact to the end
		}
		if s[valStart:valEnd] != Marker && valEnd > valStart {
			b.WriteString(s[last:valStart])
			b.WriteString(Marker)
			last = valEnd
			n++
		}
		i = valEnd
		if ok {
			i += len(q)
		}
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// stringEnd finds the closing quote of a string whose content starts at i.
// With q = `"`, a backslash escapes the next byte. With q = `\"` (a string
// inside a JSON string), `\\` introduces an escape of the inner string.
func stringEnd(s string, i int, q string) (int, bool) {
	if q == `"` {
		for i < len(s) {
			switch s[i] {
			case '\\':
				i += 2
			case '"':
				return i, true
			default:
				i++
			}
		}
		return len(s), false
	}
	for i < len(s) {
		switch {
		case strings.HasPrefix(s[i:], `\\`):
			i += 2
			if i < len(s) && s[i] == '\\' {
				i += 2
			} else {
				i++
			}
		case strings.HasPrefix(s[i:], `\"`):
			return i, true
		case s[i] == '"': // a bare quote cannot occur inside a JSON string
			return i, false
		default:
			i++
		}
	}
	return len(s), false
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

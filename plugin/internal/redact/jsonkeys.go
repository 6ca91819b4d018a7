package redact

import "strings"

// sensitiveWords end a JSON key whose value is a secret ("session_token",
// "db_password", "X-Api-Key"). The key must end with one of them, so
// "max_tokens" or "token_count" are left alone.
var sensitiveWords = []string{"password", "passwd", "pwd", "secret", "token", "apikey", "api_key", "api-key",
	"accesskey", "access_key", "access-key", "privatekey", "private_key", "private-key", "authorization",
	"cookie", "credential", "credentials", "sessionid", "session_id", "session-id"}

// SensitiveName reports whether an environment variable or JSON key
// names a secret: it ends with a sensitive word (GITHUB_TOKEN,
// DB_PASSWORD, OPENAI_API_KEY), in any case.
func SensitiveName(name string) bool { return sensitiveKey(name) }

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
// level of JSON text (quote `"`) and in JSON held in a JSON string, to
// four levels deep (quotes `\"`, `\\\"`...: a text block holding a
// document, logged again as a tool's arguments). It is a tolerant
// scanner, not a parser: it works on any text and never fails, so a
// truncated or malformed document is still redacted as far as it goes.
func jsonKeys(s string) (string, int) {
	n := 0
	for q, level := `"`, 0; level < 5 && strings.Contains(s, q); q, level = strings.Repeat(`\`, 2*(len(q)-1)+1)+`"`, level+1 {
		var m int
		s, m = scanKeys(s, q)
		n += m
	}
	return s, n
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
// With q = `"`, a backslash escapes the next byte. With q of b backslashes
// and a quote (a string inside a JSON string, b = 1, 3, 7...), the string
// ends at exactly q; a quote after more backslashes is escaped inside it,
// a quote after fewer means the text left the string (not terminated).
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
	b := len(q) - 1
	for i < len(s) {
		if s[i] != '\\' && s[i] != '"' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '\\' {
			j++
		}
		if j < len(s) && s[j] == '"' {
			switch run := j - i; {
			case run == b:
				return i, true
			case run < b:
				return i, false
			}
			i = j + 1
			continue
		}
		i = j
	}
	return len(s), false
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

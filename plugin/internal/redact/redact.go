// Package redact removes secrets from text before anything is stored.
//
// It runs inside the plugin so that every host (Go, JS, any Extism host)
// redacts byte-for-byte the same way. It works on raw text, JSON included,
// rather than on a decoded tree, so that a stored response keeps the
// server's own formatting and key order.
//
// Rules are cheap to skip: each has a keyword pre-filter, and its regular
// expression is compiled only the first time text containing the keyword is
// seen. Replacement is idempotent: redacting redacted text changes nothing.
package redact

import (
	"regexp"
	"sort"
	"strings"
)

// Marker replaces a value found by position (under a sensitive key, after a
// Bearer keyword, in URL userinfo, or a known value).
const Marker = "[REDACTED]"

// MinKnownLen is the shortest known value (e.g. a relay token) redacted by
// exact match. Shorter values would hit ordinary words.
const MinKnownLen = 8

type rule struct {
	kind string
	// keywords: the rule runs only if the lower-cased text contains one.
	keywords []string
	pattern  string
	// repl is a regexp.Expand template; empty means "[REDACTED:<kind>]".
	repl string
	re   *regexp.Regexp
}

// sensitiveKey matches JSON keys whose values are secrets.
const sensitiveKey = `[A-Za-z0-9_.-]*(?i:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|authorization|cookie|credentials?|session[_-]?id)`

var rules = []*rule{
	{kind: "private_key", keywords: []string{"private key-----"},
		pattern: `-----BEGIN[A-Z ]{0,40} PRIVATE KEY-----(?s:.)*?-----END[A-Z ]{0,40} PRIVATE KEY-----`},
	// "key": "value" at top level of JSON text.
	{kind: "json_key", keywords: keyWords(),
		pattern: `("` + sensitiveKey + `"\s*:\s*")(?:[^"\\]|\\.)+(")`, repl: "${1}" + Marker + "${2}"},
	// \"key\": \"value\" inside a JSON string that holds JSON.
	{kind: "json_key_escaped", keywords: keyWords(),
		pattern: `(\\"` + sensitiveKey + `\\"\s*:\s*\\")(?:[^"\\]|\\[^"])+(\\")`, repl: "${1}" + Marker + "${2}"},
	// key=value and key: value in prose, headers and query strings.
	{kind: "key_value", keywords: []string{"pass", "pwd", "secret", "api", "access", "auth", "token"},
		pattern: `(?i)(\b(?:password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|access[_-]?token|auth[_-]?token|x-api-key)\s*[:=]\s*)[^\s"'&,;\\\[]{3,}`,
		repl:    "${1}" + Marker},
	{kind: "auth_header", keywords: []string{"bearer", "basic"},
		pattern: `(?i)(\b(?:bearer|basic)\s+)[A-Za-z0-9._~+/=-]{8,}`, repl: "${1}" + Marker},
	{kind: "url_userinfo", keywords: []string{"://"},
		pattern: `([A-Za-z][A-Za-z0-9+.-]{0,20}://[^/\s:@"'\\]{1,256}:)[^/\s@"'\\]{1,256}(@)`, repl: "${1}" + Marker + "${2}"},
	{kind: "aws_access_key", keywords: []string{"akia", "asia"}, pattern: `\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`},
	{kind: "github_token", keywords: []string{"gh", "github_pat_"}, pattern: `\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`},
	{kind: "slack_token", keywords: []string{"xox"}, pattern: `\bxox[abprs]-[A-Za-z0-9-]{10,}`},
	{kind: "api_key", keywords: []string{"sk-", "sk_", "rk_"}, pattern: `\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|[rs]k_(?:live|test)_[0-9A-Za-z]{16,})`},
	{kind: "google_api_key", keywords: []string{"aiza"}, pattern: `\bAIza[0-9A-Za-z_-]{35}`},
	{kind: "jwt", keywords: []string{"eyj"}, pattern: `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`},
}

func keyWords() []string {
	return []string{"pass", "pwd", "secret", "token", "key", "authorization", "cookie", "credential", "session"}
}

// Redactor redacts text. Known values (tokens the relay holds, sensitive
// environment values) are replaced by exact match before any pattern.
type Redactor struct {
	known []string
}

// New returns a Redactor that also removes each known value at least
// MinKnownLen long.
func New(known ...string) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	for _, k := range known {
		if len(k) >= MinKnownLen && !seen[k] {
			seen[k] = true
			r.known = append(r.known, k)
		}
	}
	// Longest first, so a token that contains another is removed whole.
	sort.Slice(r.known, func(i, j int) bool { return len(r.known[i]) > len(r.known[j]) })
	return r
}

// String returns s with every secret replaced, and how many were.
func (r *Redactor) String(s string) (string, int) {
	n := 0
	for _, k := range r.known {
		if c := strings.Count(s, k); c > 0 {
			n += c
			s = strings.ReplaceAll(s, k, Marker)
		}
	}
	lower := strings.ToLower(s)
	for _, ru := range rules {
		if !containsAny(lower, ru.keywords) {
			continue
		}
		if ru.re == nil {
			ru.re = regexp.MustCompile(ru.pattern)
		}
		changed := false
		out := ru.re.ReplaceAllStringFunc(s, func(m string) string {
			var rep string
			if ru.repl == "" {
				rep = "[REDACTED:" + ru.kind + "]"
			} else {
				sub := ru.re.FindStringSubmatchIndex(m)
				rep = string(ru.re.ExpandString(nil, ru.repl, m, sub))
			}
			if rep != m {
				n++
				changed = true
			}
			return rep
		})
		if changed {
			s = out
			lower = strings.ToLower(s)
		}
	}
	return s, n
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

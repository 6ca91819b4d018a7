// Package redact removes secrets from text before anything is stored.
//
// It runs inside the plugin so that every host (Go, JS, any Extism host)
// redacts byte for byte the same way. It works on raw text, JSON included,
// rather than on a decoded tree, so that a stored response keeps the
// server's own formatting and key order.
//
// Three passes, cheapest first: exact known values (relay tokens), a
// scanner for values under sensitive JSON keys, then pattern rules that
// each run only in windows around a literal anchor, so text without
// anchors costs one substring search per anchor and no regular expression.
// Redaction is idempotent: redacting redacted text changes nothing.
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
	// anchors are lower-case literals; every match contains one.
	anchors []string
	// back is how far before an anchor a match may start.
	back    int
	pattern string
	// repl is a regexp.Expand template; empty means "[REDACTED:<kind>]".
	repl string
	re   *regexp.Regexp
}

// window is how far after an anchor a match is first looked for; a match
// that reaches the window's end is retried in a wider window, so a long
// secret is never cut in half.
const window = 512

var rules = []*rule{
	{kind: "private_key", anchors: []string{"-----begin"},
		pattern: `-----BEGIN[A-Z ]{0,40} PRIVATE KEY-----(?s:.)*?-----END[A-Z ]{0,40} PRIVATE KEY-----`},
	// key=value and key: value in prose, headers and query strings.
	{kind: "key_value", back: 16,
		anchors: []string{"password", "passwd", "pwd", "secret", "api_key", "api-key", "apikey", "access_token", "access-token", "auth_token", "auth-token"},
		pattern: `(?i)(\b(?:password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|access[_-]?token|auth[_-]?token|x-api-key)\s*[:=]\s*)[^\s"'&,;\\\[]{3,}`,
		repl:    "${1}" + Marker},
	{kind: "auth_header", anchors: []string{"bearer", "basic"},
		pattern: `(?i)(\b(?:bearer|basic)\s+)[A-Za-z0-9._~+/=-]{8,}`, repl: "${1}" + Marker},
	{kind: "url_userinfo", back: 300, anchors: []string{"://"},
		pattern: `([A-Za-z][A-Za-z0-9+.-]{0,20}://[^/\s:@"'\\]{1,256}:)[^/\s@"'\\]{1,256}(@)`, repl: "${1}" + Marker + "${2}"},
	{kind: "aws_access_key", anchors: []string{"akia", "asia"}, pattern: `\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`},
	{kind: "github_token", anchors: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		pattern: `\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`},
	{kind: "slack_token", anchors: []string{"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"}, pattern: `\bxox[abprs]-[A-Za-z0-9-]{10,}`},
	{kind: "api_key", anchors: []string{"sk-", "sk_live_", "sk_test_", "rk_live_", "rk_test_"},
		pattern: `\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|[rs]k_(?:live|test)_[0-9A-Za-z]{16,})`},
	{kind: "google_api_key", anchors: []string{"aiza"}, pattern: `\bAIza[0-9A-Za-z_-]{35}`},
	{kind: "jwt", anchors: []string{"eyj"}, pattern: `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`},
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
	s, m := jsonKeys(s)
	n += m
	lower := asciiLower(s)
	for _, ru := range rules {
		if out, m := ru.apply(s, lower); m > 0 {
			n += m
			s = out
			lower = asciiLower(s)
		}
	}
	return s, n
}

// asciiLower lower-cases A-Z only. Unlike strings.ToLower it keeps every
// byte offset (ToLower rewrites invalid UTF-8 and some letters to sequences
// of another length), so an anchor found in the result is at the same
// offset in s. Anchors are ASCII, so nothing is missed.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// apply runs the rule in the windows around its anchors.
func (ru *rule) apply(s, lower string) (string, int) {
	spans := anchorWindows(lower, ru.anchors, ru.back)
	if len(spans) == 0 {
		return s, 0
	}
	if ru.re == nil {
		ru.re = regexp.MustCompile(ru.pattern)
	}
	var b strings.Builder
	n, last := 0, 0
	for _, sp := range spans {
		lo, hi := max(sp[0], last), sp[1]
		// Start on a word boundary, so \b and leading classes see what they
		// would see in the whole text.
		for lo > last && lo > sp[0]-64 && isWordByte(s[lo-1]) {
			lo--
		}
		matches := ru.re.FindAllStringSubmatchIndex(s[lo:hi], -1)
		for hi < len(s) && widen(ru, matches, hi-lo) {
			hi = min(len(s), lo+2*(hi-lo))
			matches = ru.re.FindAllStringSubmatchIndex(s[lo:hi], -1)
		}
		for _, mt := range matches {
			m := s[lo+mt[0] : lo+mt[1]]
			rep := "[REDACTED:" + ru.kind + "]"
			if ru.repl != "" {
				rep = string(ru.re.ExpandString(nil, ru.repl, s[lo:hi], mt))
			}
			if rep == m {
				continue
			}
			b.WriteString(s[last : lo+mt[0]])
			b.WriteString(rep)
			last = lo + mt[1]
			n++
		}
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// widen reports whether a window of width w must grow: a match touches its
// end (the secret may go on), or a private key's END line lies beyond it.
func widen(ru *rule, matches [][]int, w int) bool {
	if len(matches) > 0 {
		return matches[len(matches)-1][1] == w
	}
	return ru.kind == "private_key" && w < 1<<20
}

// anchorWindows returns the merged [lo, hi) windows around every occurrence
// of the anchors in lower.
func anchorWindows(lower string, anchors []string, back int) [][2]int {
	var spans [][2]int
	for _, a := range anchors {
		for i := 0; ; {
			j := strings.Index(lower[i:], a)
			if j < 0 {
				break
			}
			at := i + j
			spans = append(spans, [2]int{max(0, at-back), min(len(lower), at+len(a)+window)})
			i = at + len(a)
		}
	}
	if len(spans) < 2 {
		return spans
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		if top := &merged[len(merged)-1]; sp[0] <= top[1] {
			top[1] = max(top[1], sp[1])
		} else {
			merged = append(merged, sp)
		}
	}
	return merged
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Package redact removes secrets from text before anything is stored.
//
// It runs inside the plugin so that every host (Go, JS, any Extism host)
// redacts byte for byte the same way. It works on raw text, JSON included,
// rather than on a decoded tree, so that a stored response keeps the
// server's own formatting and key order.
//
// Three passes, cheapest first: exact known values (relay tokens), a
// scanner for values under sensitive JSON keys, then pattern rules that
// each run only in windows around a literal anchor, all anchors found in one pass, so
// text without anchors costs one scan and no regular expression.
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
	// One pass finds every rule's anchors; the text is scanned again only
	// after a rule changed it (offsets moved), which is rare.
	hits := findAnchors(s)
	for i, ru := range rules {
		if len(hits[i]) == 0 {
			continue
		}
		if out, m := ru.apply(s, hits[i]); m > 0 {
			n += m
			s = out
			hits = findAnchors(s)
		}
	}
	return s, n
}

// anchorRef is one anchor of one rule, indexed by its first byte.
type anchorRef struct {
	rest string // the anchor after its first byte
	rule int
	n    int // the anchor's length
	id   int // index among all anchors
}

// byFirst lists every anchor under its first (lower-case) byte; nAnchors
// counts them. pairs has a bit set for the first two bytes of every
// anchor (all are longer than two), lower-cased, so most positions of a
// text are passed over with one lookup.
var byFirst, nAnchors, pairs = func() ([256][]anchorRef, int, *[1024]uint64) {
	var t [256][]anchorRef
	var pr [1024]uint64
	id := 0
	for ri, ru := range rules {
		for _, a := range ru.anchors {
			if len(a) < 3 {
				panic("redact: anchor shorter than 3 bytes: " + a)
			}
			t[a[0]] = append(t[a[0]], anchorRef{rest: a[1:], rule: ri, n: len(a), id: id})
			pair := uint16(a[0])<<8 | uint16(a[1])
			pr[pair>>6] |= 1 << (pair & 63)
			id++
		}
	}
	return t, id, &pr
}()

// lowerTab maps each byte to itself with A-Z lower-cased.
var lowerTab = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] = byte(i) + ('a' - 'A')
		}
	}
	return
}()

// findAnchors returns, for each rule, the windows around its anchors in s
// (compared case-insensitively, ASCII only, so offsets are s's own), in
// one pass over s. Occurrences of the same anchor do not overlap, and
// windows are merged, as a search anchor by anchor would give: the
// result only depends on s.
func findAnchors(s string) [][][2]int {
	var spans [][][2]int
	var next []int // per anchor: where its next occurrence may start
	for i := 0; i+2 < len(s); i++ {
		pair := uint16(lowerTab[s[i]])<<8 | uint16(lowerTab[s[i+1]])
		if pairs[pair>>6]&(1<<(pair&63)) == 0 {
			continue
		}
		for _, a := range byFirst[lowerTab[s[i]]] {
			if len(s)-i < a.n || !hasLowerPrefix(s[i+1:], a.rest) {
				continue
			}
			if next == nil {
				next = make([]int, nAnchors)
				spans = make([][][2]int, len(rules))
			}
			if i < next[a.id] {
				continue
			}
			next[a.id] = i + a.n
			spans[a.rule] = append(spans[a.rule], [2]int{max(0, i-rules[a.rule].back), min(len(s), i+a.n+window)})
		}
	}
	if spans == nil {
		return make([][][2]int, len(rules))
	}
	for ri, sp := range spans {
		spans[ri] = merge(sp)
	}
	return spans
}

// hasLowerPrefix reports whether s starts with lower-case p, ignoring the
// case of ASCII letters in s.
func hasLowerPrefix(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		c := s[j]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p[j] {
			return false
		}
	}
	return true
}

// merge sorts windows by start and joins those that overlap or touch.
func merge(spans [][2]int) [][2]int {
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

// apply runs the rule in the given windows around its anchors.
func (ru *rule) apply(s string, spans [][2]int) (string, int) {
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

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

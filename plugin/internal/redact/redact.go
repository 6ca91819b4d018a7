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
	"math"
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
	// secret marks a generated (gitleaks) rule: only the secret is
	// replaced, the capture group gitleaks names (group) or else its
	// first non-empty one, and only when its Shannon entropy exceeds
	// entropy, as gitleaks decides.
	secret  bool
	group   int
	entropy float64
	// allow: a secret matching one of these is a placeholder or a
	// published example, not a secret (gitleaks' allowlists on the
	// secret).
	allow   []string
	allowRe []*regexp.Regexp
	// minValue: a replaced value (the match after group 1) shorter than
	// this is left alone.
	minValue int
	// skip: a match it matches is left alone (cookie attributes).
	skip *regexp.Regexp
	// pre, when set, must accept an anchor found at s[i:i+n] for its
	// window to be searched: a test no match can fail, cheaper than the
	// pattern (for rules whose keywords are common words).
	pre func(s string, i, n int) bool
	re  *regexp.Regexp
}

// genRule is one row of the generated gitleaks table.
type genRule struct {
	id, pattern string
	group       int
	entropy     float64
	keywords    []string
	allow       []string
	// assign: the pattern has gitleaks' generic shape, an assignment
	// right after the keyword.
	assign bool
}

// genBack is how far before its keyword a gitleaks match may start: their
// generic shape allows 50 identifier bytes, 20 more and an operator.
const genBack = 100

// window is how far after an anchor a match is first looked for; a match
// that reaches the window's end is retried in a wider window, so a long
// secret is never cut in half.
const window = 512

// rules are ctxhook's own rules, for what gitleaks misses or must not
// gate (bare Bearer and Basic values, cookies, URL userinfo, session ids,
// low-entropy passwords), then every gitleaks rule.
var rules = append(ownRules, fromGitleaks()...)

func fromGitleaks() []*rule {
	out := make([]*rule, 0, len(gitleaksRules))
	for _, g := range gitleaksRules {
		out = append(out, &rule{kind: g.id, anchors: g.keywords, back: genBack, pattern: g.pattern,
			secret: true, group: g.group, entropy: g.entropy, allow: g.allow})
		if g.assign {
			out[len(out)-1].pre = assignAfter
		}
		if x, ok := sharper[g.id]; ok {
			out[len(out)-1].pre = x.pre
			out[len(out)-1].back = max(genBack, x.back)
		}
	}
	return out
}

var ownRules = []*rule{
	{kind: "private_key", anchors: []string{"-----begin"},
		pattern: `-----BEGIN[A-Z ]{0,40} PRIVATE KEY-----(?s:.)*?-----END[A-Z ]{0,40} PRIVATE KEY-----`},
	// key=value and key: value in prose, headers, env files and query
	// strings, the key possibly prefixed (db_password, AWS_SECRET_ACCESS_KEY).
	{kind: "key_value", back: 64, pre: keyAssignAfter,
		anchors: []string{"password", "passwd", "pwd", "secret", "api_key", "api-key", "apikey", "access_token", "access-token",
			"auth_token", "auth-token", "access_key", "access-key", "private_key", "private-key"},
		pattern: `(?i)(\b(?:[a-z0-9]+[_.-])*(?:password|passwd|pwd|secret|secret[_-]?(?:access[_-]?)?key|access[_-]?key|private[_-]?key|client[_-]?secret|api[_-]?key|access[_-]?token|auth[_-]?token|x-api-key)["']?\s*[:=]\s*["']?)[^\s"'&,;\\\[]{3,}`,
		repl:    "${1}" + Marker},
	// A secret given to a command-line flag after a space (`--password
	// hunter2`; `--password=...` is key_value's). The value must not
	// start like another flag, and six bytes at least, so "the --token
	// flag" stays as it is.
	{kind: "cli_flag", anchors: []string{"--"}, pre: flagAfter,
		pattern: `(?i)(--(?:[a-z0-9]+-)*(?:password|passwd|pwd|token|secret|api-?key|access-?key|client-secret)[ \t]+["']?)[^\s"'\\-][^\s"'\\]{5,}`,
		repl:    "${1}" + Marker},
	// An Authorization header's value, whatever its scheme.
	{kind: "auth_header", anchors: []string{"authorization"},
		pattern: `(?i)(\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest|apikey)\s+)?)[A-Za-z0-9._~+/=-]{8,}`,
		repl:    "${1}" + Marker},
	// A bare Bearer or Basic credential: one that looks like one (a digit
	// or base64 padding in it), so "basic operations" stays.
	{kind: "auth_scheme", anchors: []string{"bearer", "basic"}, minValue: 8,
		pattern: `(?i)(\b(?:bearer|basic)\s+)[A-Za-z0-9._~+/-]*[0-9=][A-Za-z0-9._~+/=-]*`, repl: "${1}" + Marker},
	// Cookie and Set-Cookie values, each name=value after the header.
	{kind: "cookie", anchors: []string{"cookie"},
		pattern: `(?i)((?:\b(?:set-)?cookie["']?\s*[:=]\s*["']?|;\s*)[A-Za-z0-9_.!#$%&*+^|~-]{1,64}=)[^\s";,\\\[]{6,}`,
		repl:    "${1}" + Marker, skip: regexp.MustCompile(`(?i)^;\s*(?:domain|path|expires|max-age|samesite|priority)=`)},
	// MCP's Streamable HTTP session header.
	{kind: "mcp_session_id", anchors: []string{"mcp-session-id"},
		pattern: `(?i)(\bmcp-session-id["']?\s*[:=]\s*["']?)[A-Za-z0-9._~+/=-]{8,}`, repl: "${1}" + Marker},
	{kind: "url_userinfo", back: 300, anchors: []string{"://"}, pre: userinfoAfter,
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
	rest string // the anchor after its first two bytes
	rule int
	n    int // the anchor's length
	id   int // index among all anchors
}

// byPair lists the anchors that start with each pair of (lower-case)
// bytes, none shorter than two: pairIdx maps the pair to its list's index
// plus one, 0 for a pair no anchor starts with, so most positions of a
// text cost one table lookup. nAnchors counts the anchors.
var pairIdx, byPair, nAnchors = func() (*[1 << 16]uint8, [][]anchorRef, int) {
	var idx [1 << 16]uint8
	var lists [][]anchorRef
	id := 0
	for ri, ru := range rules {
		for _, a := range ru.anchors {
			if len(a) < 2 {
				panic("redact: anchor shorter than 2 bytes: " + a)
			}
			pair := uint16(a[0])<<8 | uint16(a[1])
			if idx[pair] == 0 {
				if len(lists) == 255 {
					panic("redact: more than 255 anchor pairs")
				}
				lists = append(lists, nil)
				idx[pair] = uint8(len(lists))
			}
			lists[idx[pair]-1] = append(lists[idx[pair]-1], anchorRef{rest: a[2:], rule: ri, n: len(a), id: id})
			id++
		}
	}
	return &idx, lists, id
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
	if len(s) < 2 {
		return make([][][2]int, len(rules))
	}
	c1 := lowerTab[s[0]]
	for i := 0; i+1 < len(s); i++ {
		c2 := lowerTab[s[i+1]]
		k := pairIdx[uint16(c1)<<8|uint16(c2)]
		c1 = c2
		if k == 0 {
			continue
		}
		for _, a := range byPair[k-1] {
			if len(s)-i < a.n || !hasLowerPrefix(s[i+2:], a.rest) {
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
			if pre := rules[a.rule].pre; pre != nil && !pre(s, i, a.n) {
				continue
			}
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

// sharper holds tighter anchor tests for gitleaks rules whose keywords
// are common: each follows from the rule's pattern (see the functions).
var sharper = map[string]struct {
	pre  func(string, int, int) bool
	back int
}{
	// value: [\w.=-]{10,150} or [a-z0-9][a-z0-9+/]{11,}, after the assignment.
	"generic-api-key": {pre: assignedValueAfter},
	// \b(ey..., \b((?:hvs\.|s\.)...: the keyword starts a word.
	"jwt":                 {pre: wordStart},
	"vault-service-token": {pre: vaultToken},
	// both alternatives hold kind:[ \t]*["']?\bsecret; the data: part may
	// come 300 bytes before.
	"kubernetes-secret-yaml": {pre: kindBefore, back: 400},
	// the value is a quoted string of 8-20 bytes after the assignment.
	"hashicorp-tf-password": {pre: quotedValueAfter},
}

// flagAfter accepts a "--" that starts a flag name (letters, digits,
// dashes) ending in one of cli_flag's words and followed by a blank: a
// separator line of dashes or a decrement costs no pattern.
func flagAfter(s string, i, n int) bool {
	j := i + n
	for j < len(s) && j-i < 64 && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' || s[j] == '-') {
		j++
	}
	if j == i+n || j >= len(s) || s[j] != ' ' && s[j] != '\t' {
		return false
	}
	name := strings.ToLower(s[i+n : j])
	for _, w := range []string{"password", "passwd", "pwd", "token", "secret", "apikey", "api-key", "accesskey", "access-key"} {
		if strings.HasSuffix(name, w) {
			return true
		}
	}
	return false
}

// keyAssignAfter accepts an anchor that ends a key (at most 20 more key
// bytes, one quote, blanks) followed by ':' or '=': the key_value rule.
func keyAssignAfter(s string, i, n int) bool {
	j := i + n
	for k := 0; k < 20 && j < len(s) && (isWordByte(s[j]) || s[j] == '-' || s[j] == '.'); k++ {
		j++
	}
	if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r' || s[j] == '\f' || s[j] == '\v') {
		j++
	}
	return j < len(s) && (s[j] == ':' || s[j] == '=')
}

// quotedValueAfter accepts an assignment followed, past up to 20 quotes,
// blanks, backslashes or '=', by a double-quoted run of 8-20 value bytes.
func quotedValueAfter(s string, i, n int) bool {
	j := afterAssign(s, i, n)
	if j < 0 {
		return false
	}
	for k := 0; k < 21 && j < len(s); k++ {
		if s[j] == '"' {
			run := 0
			for q := j + 1; q < len(s) && run <= 20; q++ {
				if c := s[q]; isWordByte(c) || c == '=' || c == '-' {
					run++
					continue
				} else if c == '"' && run >= 8 {
					return true
				}
				break
			}
		}
		if strings.IndexByte("`'\" \t\n\r\f=", s[j]) < 0 {
			return false
		}
		j++
	}
	return false
}

// wordStart accepts an anchor that starts a word.
func wordStart(s string, i, _ int) bool { return i == 0 || !isWordByte(s[i-1]) }

// vaultToken accepts hvs. or s. starting a word and followed by as many
// token bytes as the rule needs (90 of [\w-], or 24 alphanumerics): "s."
// starts a word on nearly every line of Go.
func vaultToken(s string, i, n int) bool {
	if !wordStart(s, i, n) {
		return false
	}
	need, j := 24, i+n
	if n > 2 {
		need = 90
	}
	for k := 0; k < need; k++ {
		if j+k >= len(s) || !(isWordByte(s[j+k]) || n > 2 && s[j+k] == '-') || n == 2 && s[j+k] == '_' {
			return false
		}
	}
	return true
}

// kindBefore accepts an anchor right after "kind:" (and blanks or a quote).
func kindBefore(s string, i, _ int) bool {
	j := i
	for j > 0 && i-j < 8 && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '"' || s[j-1] == '\'') {
		j--
	}
	return j >= 5 && strings.EqualFold(s[j-5:j], "kind:")
}

// afterAssign is where the value may start after the assignment that
// follows the anchor at s[i:i+n] (its operator bytes skipped), or -1.
func afterAssign(s string, i, n int) int {
	j := assignEnd(s, i, n)
	if j < 0 {
		return -1
	}
	for k := 0; k < 4 && j < len(s) && strings.IndexByte("=>:|?,", s[j]) >= 0; k++ {
		j++
	}
	return j
}

// assignedValueAfter accepts what assignAfter accepts when the assignment
// is followed, past up to 20 quotes, blanks, backslashes or '=', by at
// least 10 bytes that can make a generic value.
func assignedValueAfter(s string, i, n int) bool {
	j := afterAssign(s, i, n)
	if j < 0 {
		return false
	}
	for k := 0; k < 21 && j < len(s) && strings.IndexByte("`'\" \t\n\r\f=\\", s[j]) >= 0; k++ {
		j++
	}
	run := 0
	for j < len(s) && (isWordByte(s[j]) || strings.IndexByte(".=-+/", s[j]) >= 0) {
		if run++; run >= 10 {
			return true
		}
		j++
	}
	return false
}

// assignAfter accepts a keyword followed, within 30 identifier bytes and
// 12 quotes, blanks or backslashes, by the first byte of an assignment (= > : | ? ,):
// what every pattern using it needs (gitleaks allows 20 bytes; the slack
// covers keywords shorter than the word the pattern names).
func assignAfter(s string, i, n int) bool { return assignEnd(s, i, n) >= 0 }

// assignEnd is where the assignment after the anchor at s[i:i+n] starts,
// or -1.
func assignEnd(s string, i, n int) int {
	j := i + n
	for k := 0; k < 30 && j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '.' || s[j] == '-' || isWordByte(s[j])); k++ {
		j++
	}
	for k := 0; k < 13 && j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r' || s[j] == '\f' || s[j] == '\'' || s[j] == '"' || s[j] == '\\'); k++ {
		j++
	}
	if j < len(s) && strings.IndexByte("=>:|?,", s[j]) >= 0 {
		return j
	}
	return -1
}

// userinfoAfter accepts "://" followed by user:password@, the only way
// the URL rule matches: a ':' then an '@' before the authority ends.
func userinfoAfter(s string, i, n int) bool {
	colon := false
	for j := i + n; j < len(s) && j < i+n+520; j++ {
		switch c := s[j]; c {
		case '@':
			return colon
		case ':':
			colon = true
		case '/', ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', '\\':
			return false
		}
	}
	return false
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
			if ru.secret {
				a, z, ok := ru.secretSpan(s[lo:hi], mt)
				if !ok || lo+a < last {
					continue
				}
				b.WriteString(s[last : lo+a])
				b.WriteString("[REDACTED:" + ru.kind + "]")
				last = lo + z
				n++
				continue
			}
			if ru.minValue > 0 && len(mt) >= 4 && mt[1]-mt[3] < ru.minValue ||
				ru.skip != nil && ru.skip.MatchString(s[lo+mt[0]:lo+mt[1]]) {
				continue
			}
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

// secretSpan is where the secret of a generated rule's match mt lies in
// w, and whether it is one: gitleaks' secret group, else the first
// non-empty group, else the whole match; with enough entropy; not a
// marker already.
func (ru *rule) secretSpan(w string, mt []int) (a, z int, ok bool) {
	a, z = mt[0], mt[1]
	if ru.group > 0 && 2*ru.group+1 < len(mt) {
		a, z = mt[2*ru.group], mt[2*ru.group+1]
	} else if ru.group == 0 {
		for g := 1; 2*g+1 < len(mt); g++ {
			if mt[2*g] >= 0 && mt[2*g+1] > mt[2*g] {
				a, z = mt[2*g], mt[2*g+1]
				break
			}
		}
	}
	if a < 0 || z <= a {
		return 0, 0, false
	}
	sec := w[a:z]
	if strings.Contains(sec, "[REDACTED") || ru.entropy != 0 && entropy(sec) <= ru.entropy {
		return 0, 0, false
	}
	if ru.allowRe == nil && len(ru.allow) > 0 {
		for _, p := range ru.allow {
			ru.allowRe = append(ru.allowRe, regexp.MustCompile(p))
		}
	}
	for _, re := range ru.allowRe {
		if re.MatchString(sec) {
			return 0, 0, false
		}
	}
	return a, z, true
}

// entropy is the Shannon entropy of s's bytes, in bits, as gitleaks
// computes it.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	var e float64
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			e -= p * math.Log2(p)
		}
	}
	return e
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

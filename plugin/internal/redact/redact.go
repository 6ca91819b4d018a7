// Package redact removes secrets from text before anything is stored.
//
// It runs inside the plugin so that every host (Go, JS, any Extism host)
// redacts byte for byte the same way. It works on raw text, JSON included,
// rather than on a decoded tree, so that a stored response keeps the
// server's own formatting and key order.
//
// Three stages, cheapest first: exact known values (relay tokens), a
// scanner for values under sensitive JSON keys, then pattern rules that
// each run only in windows around a literal anchor. One pass over the
// text finds every anchor and the JSON keys, so text without anchors
// costs one scan and no regular expression. Each stage sees the text as
// the stages before it left it, as if it had been rebuilt after each,
// but it never is: the replacements are kept as edits on the input (see
// text), and the result is one list of spans, written out once.
// Redaction is idempotent: redacting redacted text changes nothing.
package redact

import (
	"io"
	"math"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
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
	// class: more anchors, four bytes, each from its set (lower-case).
	class *[4]string
	// back is how far before an anchor a match may start.
	back    int
	pattern string
	// repl is "" (the match becomes "[REDACTED:<kind>]"), "${1}[REDACTED]"
	// or "${1}[REDACTED]${2}", where group 1 starts the match and group 2
	// ends it: only what lies between them is replaced.
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
	allow []string
	// keyed, when set, must accept a generated rule's secret w[a:z] for
	// it to be replaced: a test of the key before it (see generic.go).
	keyed func(w string, a, z int) bool
	// minValue: a replaced value (the match after group 1) shorter than
	// this is left alone.
	minValue int
	// skip: a match it matches is left alone (cookie attributes).
	skip *regexp.Regexp
	// code, when set, leaves a template rule's value w[a:z] alone when it
	// reports that the value is code, not a secret (see codeAssigned).
	code func(w string, a, z int) bool
	// pre, when set, must accept an anchor found at s[i:i+n] for its
	// window to be searched: a test no match can fail, cheaper than the
	// pattern (for rules whose keywords are common words). It is given
	// preBack bytes before the anchor and reach (at most preAhead) after
	// it, no more (see accepts), and must need no more to decide
	// (TestPreReach).
	pre   func(s string, i, n int) bool
	reach int

	once    sync.Once
	re      *regexp.Regexp
	allowRe []*regexp.Regexp
	marker  string // "[REDACTED:<kind>]"
	tail    bool   // repl ends with ${2}
	// at: every match starts with an anchor (see startsWithAnchor), so
	// the pattern is tried anchored at each anchor (atRe, with the byte
	// before it for \b: atCtx) on the anchor's longest match (maxLen,
	// -1 for none) and a byte, instead of searched for in windows.
	at          bool
	holds       bool // every match holds an anchor (see holdsAnchor)
	wb          bool // the pattern starts with \b
	maxLen      int
	atRe, atCtx *regexp.Regexp
}

// How far a pre test may read around its anchor: the text near an edit
// that a later rule sees differently.
const (
	preBack  = 16
	preAhead = 600
)

// noPre turns every pre test off (each anchor's window is searched):
// tests compare the result with and without them, which must be the same.
var noPre bool

// accepts asks the rule's pre test about the anchor at s[i:i+n], on the
// bytes around it it may read: so it decides the same on any text that
// holds those bytes there, the input or a piece of what a rule sees.
func (ru *rule) accepts(s string, i, n int) bool {
	if ru.pre == nil || noPre {
		return true
	}
	lo := max(0, i-preBack)
	return ru.pre(s[lo:min(len(s), i+n+ru.reach)], i-lo, n)
}

func (ru *rule) compile() *regexp.Regexp {
	ru.once.Do(func() {
		re, err := syntax.Parse(ru.pattern, syntax.Perl)
		if err != nil {
			panic(err)
		}
		ru.at, ru.maxLen = startsWithAnchor(re, ru.literals()), maxLen(re)
		ru.holds = ru.at || holdsAnchor(re, ru.literals())
		ru.wb = startsWithBoundary(re)
		ru.re = regexp.MustCompile(ru.pattern)
		if ru.at {
			ru.atRe = regexp.MustCompile(`^(?:` + ru.pattern + `)`)
			ru.atCtx = regexp.MustCompile(`^(?s:.)(?:` + ru.pattern + `)`)
		}
		for _, p := range ru.allow {
			ru.allowRe = append(ru.allowRe, regexp.MustCompile(p))
		}
	})
	return ru.re
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
// low-entropy passwords, tokens with a known prefix anywhere in prose),
// then every gitleaks rule.
var rules = prepare(append(ownRules, fromGitleaks()...))

func prepare(rs []*rule) []*rule {
	for _, ru := range rs {
		ru.marker = "[REDACTED:" + ru.kind + "]"
		switch ru.repl {
		case "":
		case "${1}" + Marker:
		case "${1}" + Marker + "${2}":
			ru.tail = true
		default:
			panic("redact: unsupported replacement " + ru.repl)
		}
		if ru.pre != nil && (ru.reach <= 0 && ru.reach != noReach || ru.reach > preAhead) {
			panic("redact: a pre test without its reach: " + ru.kind)
		}
		ru.reach = max(ru.reach, 0)
	}
	return rs
}

func fromGitleaks() []*rule {
	out := make([]*rule, 0, len(gitleaksRules))
	for _, g := range gitleaksRules {
		out = append(out, &rule{kind: g.id, anchors: g.keywords, back: genBack, pattern: g.pattern,
			secret: true, group: g.group, entropy: g.entropy, allow: g.allow})
		if g.assign {
			out[len(out)-1].pre, out[len(out)-1].reach = assignAfter, assignReach
		}
		if x, ok := sharper[g.id]; ok {
			out[len(out)-1].pre, out[len(out)-1].reach = x.pre, x.reach
			out[len(out)-1].back = max(genBack, x.back)
		}
		out[len(out)-1].keyed = keyedBy[g.id]
	}
	return out
}

var ownRules = []*rule{
	{kind: "private_key", anchors: []string{"-----begin"}, pre: privateKeyHeader, reach: 57,
		pattern: `-----BEGIN[A-Z ]{0,40} PRIVATE KEY-----(?s:.)*?-----END[A-Z ]{0,40} PRIVATE KEY-----`},
	// key=value and key: value in prose, headers, env files and query
	// strings, the key possibly prefixed (db_password, AWS_SECRET_ACCESS_KEY,
	// SMTP_PASS; PGPASSWORD, MYSQL_PWD's kin written as one word). "pass" is a common word in code and reports: alone it
	// is a key only right before '=' (pass=..., as in a query string or
	// an env file; not "PASS: TestX" or "pass = true"), and no pass key
	// takes a number, a boolean or nil (FILTER_PASS = 0x2).
	{kind: "key_value", back: 64, pre: keyAssignAfter, reach: window + 3,
		anchors: []string{"pass", "pwd", "secret", "api_key", "api-key", "apikey", "access_token", "access-token", "accesstoken",
			"auth_token", "auth-token", "authtoken", "access_key", "access-key", "accesskey", "private_key", "private-key", "privatekey"},
		pattern: `(?i)(\b(?:(?:[a-z0-9]+[_.-])*(?:[a-z0-9]*(?:password|passwd|passphrase)|pwd|secret|secret[_-]?(?:access[_-]?)?key|access[_-]?key|private[_-]?key|client[_-]?secret|api[_-]?key|access[_-]?token|auth[_-]?token|x-api-key)|(?:[a-z0-9]+[_.-])*pass)["']?\s*[:=]\s*["']?)[^\s"'&,;\\\[]{3,}`,
		repl:    "${1}" + Marker, skip: regexp.MustCompile(`(?i)^(?:pass["']?(?:\s*:|\s+=|=\s)|(?:[a-z0-9]+[_.-])*pass["']?\s*[:=]\s*["']?` +
			`(?:0x[0-9a-f]+|[0-9.]+|true|false|nil|null|none)$)`), code: codeAssigned},
	// A secret given to a command-line flag after a space (`--password
	// hunter2`; `--password=...` is key_value's). The value must not
	// start like another flag, and six bytes at least, so "the --token
	// flag" stays as it is.
	{kind: "cli_flag", anchors: []string{"--"}, pre: flagAfter, reach: 63,
		pattern: `(?i)(--(?:[a-z0-9]+-)*(?:password|passwd|passphrase|pass|pwd|token|secret|api-?key|access-?key|client-secret)[ \t]+["']?)[^\s"'\\-][^\s"'\\]{5,}`,
		repl:    "${1}" + Marker},
	// An Authorization header's value, whatever its scheme.
	{kind: "auth_header", anchors: []string{"authorization", "proxy-authorization"},
		pattern: `(?i)(\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest|apikey)\s+)?)[A-Za-z0-9._~+/=-]{8,}`,
		repl:    "${1}" + Marker},
	// A bare Bearer or Basic credential: one that looks like one (a digit
	// or base64 padding in it), so "basic operations" stays.
	{kind: "auth_scheme", anchors: []string{"bearer", "basic"}, minValue: 8,
		pattern: `(?i)(\b(?:bearer|basic)\s+)[A-Za-z0-9._~+/-]*[0-9=][A-Za-z0-9._~+/=-]*`, repl: "${1}" + Marker},
	// Cookie and Set-Cookie values, each name=value after the header.
	{kind: "cookie", anchors: []string{"cookie"}, pre: cookieAfter, reach: window + 2,
		pattern: `(?i)((?:\b(?:set-)?cookie["']?\s*[:=]\s*["']?|;\s*)[A-Za-z0-9_.!#$%&*+^|~-]{1,64}=)[^\s";,\\\[]{6,}`,
		repl:    "${1}" + Marker, skip: regexp.MustCompile(`(?i)^;\s*(?:domain|path|expires|max-age|samesite|priority)=`)},
	// MCP's Streamable HTTP session header.
	{kind: "mcp_session_id", anchors: []string{"mcp-session-id"},
		pattern: `(?i)(\bmcp-session-id["']?\s*[:=]\s*["']?)[A-Za-z0-9._~+/=-]{8,}`, repl: "${1}" + Marker},
	// (The user and password are not bounded in the pattern: a counted
	// repetition of 256 makes a program of a thousand steps, which the
	// regexp package runs in its slowest engine; userinfoAfter bounds
	// them.)
	{kind: "url_userinfo", back: 300, anchors: []string{"://"}, pre: userinfoAfter, reach: 520,
		pattern: `([A-Za-z][A-Za-z0-9+.-]{0,20}://[^/\s:@"'\\]+:)[^/\s@"'\\]+(@)`, repl: "${1}" + Marker + "${2}"},
	{kind: "aws_access_key", anchors: []string{"akia", "asia"}, pattern: `\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`},
	{kind: "github_token", anchors: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		pattern: `\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b`},
	{kind: "slack_token", anchors: []string{"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"}, pattern: `\bxox[abprs]-[A-Za-z0-9-]{10,}`},
	{kind: "api_key", anchors: []string{"sk-", "sk_live_", "sk_test_", "rk_live_", "rk_test_"},
		pattern: `\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|[rs]k_(?:live|test)_[0-9A-Za-z]{16,})`},
	{kind: "google_api_key", anchors: []string{"aiza"}, pattern: `\bAIza[0-9A-Za-z_-]{35}`},
	{kind: "jwt", anchors: []string{"eyj"}, pattern: `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`},
	// A token with a distinctive prefix is a secret wherever it stands;
	// gitleaks wants these after an assignment (or a "mailgun" nearby).
	// Atlassian API tokens: ATATT3 and about 186 token bytes.
	{kind: "atlassian_token", anchors: []string{"atatt3"}, pre: atlassianToken, reach: 180, pattern: `\bATATT3[A-Za-z0-9_=-]{180,}`},
	// Mailgun's private keys: key- and 32 lower-case letters and digits.
	{kind: "mailgun_key", anchors: []string{"key-"}, pre: mailgunKey, reach: 33, pattern: `\bkey-[0-9a-z]{32}\b`},
	// Discord bot tokens: the bot's user id in base64 (its first four
	// bytes shaped as those of digits are), a timestamp and an HMAC,
	// joined by dots.
	{kind: "discord_bot_token", class: &[4]string{"mno", "dtjz", "aeimquyckg", "wxyz012345"}, pre: discordToken, reach: 64, secret: true, group: 1,
		pattern: `\b([MNO][DTjz][AEIMQUYcgk][w-z0-5][A-Za-z0-9]{19,24}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})(?:[^A-Za-z0-9_-]|$)`},
}

// Redactor redacts text. Known values (tokens the relay holds, ctxhook's
// own secrets, sensitive environment values) are replaced before any
// pattern (see knownSet).
type Redactor struct {
	known []string
	set   *knownSet
	// bracket: a known value holds '[' or ']', so it may meet a marker
	// written before it; such text is redacted the slow way (see Spans).
	bracket bool
}

// markerText holds every marker this package writes, to tell known
// values that are part of one.
var markerText = func() string {
	var b strings.Builder
	b.WriteString(Marker)
	for _, ru := range rules {
		b.WriteString("\x00" + ru.marker)
	}
	for _, k := range unnamedKinds {
		b.WriteString("\x00[REDACTED:" + k + "]")
	}
	return b.String()
}()

// New returns a Redactor that also removes each known value at least
// MinKnownLen long, whole (in any ASCII case, JSON escapes decoded). A
// value found inside a marker ("REDACTED") is left out: removing it
// would take markers apart, again on every pass.
func New(known ...string) *Redactor { return NewOwn(nil, known...) }

// NewOwn is New that also removes, besides the whole value, every run of
// MinKnownRun bytes or more of each of own: the values ctxhook holds
// (relay tokens, the hook secret, the store's password), random and
// nowhere else, of which a model may print a part. A sensitive
// variable's value is only known whole: it may be a path or a URL whose
// parts are everywhere.
func NewOwn(own []string, known ...string) *Redactor {
	r := &Redactor{}
	seen := map[string]int{}
	var isOwn []bool
	add := func(k string, o bool) {
		if len(k) < MinKnownLen || strings.Contains(markerText, k) {
			return
		}
		if i, ok := seen[k]; ok {
			isOwn[i] = isOwn[i] || o
			return
		}
		seen[k] = len(r.known)
		r.known, isOwn = append(r.known, k), append(isOwn, o)
		r.bracket = r.bracket || strings.ContainsAny(k, "[]")
	}
	for _, k := range own {
		add(k, true)
	}
	for _, k := range known {
		add(k, false)
	}
	if len(r.known) > 0 {
		r.set = newKnownSet(r.known, isOwn)
	}
	return r
}

// Span is one replacement: s[Start:End] becomes Repl.
type Span struct {
	Start, End int
	Repl       string
}

// String returns s with every secret replaced, and how many were.
func (r *Redactor) String(s string) (string, int) {
	spans, n := r.Spans(s)
	if len(spans) == 0 {
		return s, n
	}
	size := len(s)
	for _, sp := range spans {
		size += len(sp.Repl) - (sp.End - sp.Start)
	}
	var b strings.Builder
	b.Grow(size)
	WriteSpans(&b, s, spans)
	return b.String(), n
}

// Spans returns the replacements String makes in s, sorted and not
// overlapping, and how many secrets they remove (a span may hold more
// than one). With WriteSpans, a caller can write a large text out
// redacted without building it.
func (r *Redactor) Spans(s string) ([]Span, int) {
	if r.bracket {
		return r.slowSpans(s)
	}
	p := newPass(s)
	p.known(r.set)
	p.scan()
	p.rules()
	p.unnamed()
	out := make([]Span, len(p.t.edits))
	for i, e := range p.t.edits {
		out[i] = Span{e.start, e.end, e.repl}
	}
	return out, p.n
}

// slowSpans redacts s when a known value holds a bracket: such a value
// may be found again across a marker written for another one, which the
// edits on the input cannot say. The known values are replaced in the
// text itself, as before, and the rest runs on that; the span is the
// stretch between the first and the last byte that changed.
func (r *Redactor) slowSpans(s string) ([]Span, int) {
	t, n := s, 0
	if sp := r.set.spans(s); len(sp) > 0 {
		var b strings.Builder
		last := 0
		for _, z := range sp {
			b.WriteString(s[last:z[0]] + Marker)
			last = z[1]
		}
		b.WriteString(s[last:])
		t, n = b.String(), len(sp)
	}
	out, m := New().String(t)
	n += m
	if out == s {
		return nil, n
	}
	a := 0
	for a < len(s) && a < len(out) && s[a] == out[a] {
		a++
	}
	z := 0
	for z < len(s)-a && z < len(out)-a && s[len(s)-1-z] == out[len(out)-1-z] {
		z++
	}
	return []Span{{a, len(s) - z, out[a : len(out)-z]}}, n
}

// WriteSpans writes s with spans (sorted, not overlapping, as Spans
// returns them) applied to w, a piece at a time.
func WriteSpans(w io.Writer, s string, spans []Span) error {
	last := 0
	for _, sp := range spans {
		if _, err := io.WriteString(w, s[last:sp.Start]); err != nil {
			return err
		}
		if _, err := io.WriteString(w, sp.Repl); err != nil {
			return err
		}
		last = sp.End
	}
	_, err := io.WriteString(w, s[last:])
	return err
}

// literals are the rule's anchors, its class spelt out.
func (ru *rule) literals() []string {
	out := ru.anchors
	if c := ru.class; c != nil {
		for _, c0 := range []byte(c[0]) {
			for _, c1 := range []byte(c[1]) {
				for _, c2 := range []byte(c[2]) {
					for _, c3 := range []byte(c[3]) {
						out = append(out[:len(out):len(out)], string([]byte{c0, c1, c2, c3}))
					}
				}
			}
		}
	}
	return out
}

// discordToken accepts what discord_bot_token's pattern needs at the
// anchor: a word starts there with a byte base64 gives the digits of a
// user id, and the three dotted parts follow.
func discordToken(s string, i, _ int) bool {
	if !wordStart(s, i, 0) || i+4 > len(s) || !strings.ContainsRune("MNO", rune(s[i])) ||
		!strings.ContainsRune("DTjz", rune(s[i+1])) || !strings.ContainsRune("AEIMQUYcgk", rune(s[i+2])) || !strings.ContainsRune("wxyz012345", rune(s[i+3])) {
		return false
	}
	j := i + 1
	for j < len(s) && j-i < 29 && isAlnum(s[j]) {
		j++
	}
	if n := j - i; n < 23 || n > 28 || j >= len(s) || s[j] != '.' {
		return false
	}
	k := j + 1
	for k < len(s) && k-j <= 7 && isB64URL(s[k]) {
		k++
	}
	if k-j-1 != 6 || k >= len(s) || s[k] != '.' {
		return false
	}
	n := 0
	for k++; k < len(s) && n < 27 && isB64URL(s[k]); k++ {
		n++
	}
	return n == 27
}

// mailgunKey accepts "key-" starting a word, then 32 lower-case letters
// and digits, a digit among them, and no more word bytes.
func mailgunKey(s string, i, n int) bool {
	if !wordStart(s, i, n) || s[i:i+4] != "key-" || i+n+32 > len(s) {
		return false
	}
	digit := false
	for _, c := range []byte(s[i+n : i+n+32]) {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z':
		default:
			return false
		}
	}
	return digit && (i+n+32 == len(s) || !isWordByte(s[i+n+32]))
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isB64URL(c byte) bool { return isAlnum(c) || c == '-' || c == '_' }

// sharper holds tighter anchor tests for gitleaks rules whose keywords
// are common: each follows from the rule's pattern (see the functions).
var sharper = map[string]struct {
	pre         func(string, int, int) bool
	back, reach int
}{
	// value: [\w.=-]{10,150} or [a-z0-9][a-z0-9+/]{11,}, after the assignment.
	"generic-api-key": {pre: genericValueAfter, reach: genericReach},
	// \b(ey..., \b((?:hvs\.|s\.)...: the keyword starts a word.
	"jwt":                 {pre: wordStart, reach: noReach},
	"vault-service-token": {pre: vaultToken, reach: 90},
	// both alternatives hold kind:[ \t]*["']?\bsecret; the data: part may
	// come 300 bytes before.
	"kubernetes-secret-yaml": {pre: kindBefore, back: 400, reach: noReach},
	// the value is a quoted string of 8-20 bytes after the assignment.
	"hashicorp-tf-password": {pre: quotedValueAfter, reach: 100},
	// SK and 32 hex digits; "sk" is in ask, task and risk.
	"twilio-api-key": {pre: twilioKey, reach: 32},
}

// noReach: a pre test that reads nothing after its anchor.
const noReach = -1

// assignReach is how far assignAfter reads.
const assignReach = 44

// privateKeyHeader accepts "-----BEGIN", at most 40 capitals and blanks,
// and " PRIVATE KEY-----": a certificate costs no pattern (nor a search
// for an END line a megabyte long).
func privateKeyHeader(s string, i, n int) bool {
	if s[i:i+n] != "-----BEGIN" {
		return false
	}
	for j := i + n; j <= i+n+40 && j < len(s); j++ {
		if strings.HasPrefix(s[j:], " PRIVATE KEY-----") {
			return true
		}
		if c := s[j]; c != ' ' && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return false
}

// twilioKey accepts "SK" followed by 32 hex digits.
func twilioKey(s string, i, _ int) bool {
	if s[i] != 'S' || s[i+1] != 'K' || i+34 > len(s) {
		return false
	}
	return isHex(s[i+2 : i+34])
}

func isHex(h string) bool {
	for i := 0; i < len(h); i++ {
		if c := h[i] | 0x20; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// atlassianToken accepts ATATT3 starting a word and followed by 180
// token bytes.
func atlassianToken(s string, i, n int) bool {
	if !wordStart(s, i, n) || s[i:i+n] != "ATATT3" || i+n+180 > len(s) {
		return false
	}
	for _, c := range []byte(s[i+n : i+n+180]) {
		if !isB64URL(c) && c != '=' {
			return false
		}
	}
	return true
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
	for _, w := range []string{"password", "passwd", "passphrase", "pwd", "token", "secret", "apikey", "api-key", "accesskey", "access-key"} {
		if strings.HasSuffix(name, w) {
			return true
		}
	}
	return name == "pass" || strings.HasSuffix(name, "-pass")
}

// keyAssignAfter accepts an anchor that ends a key (at most 20 more key
// bytes, one quote, blanks) followed by ':' or '=' and a value of three
// bytes or more (past blanks and a quote): the key_value rule.
func keyAssignAfter(s string, i, n int) bool {
	// No match goes past the window: nothing is read beyond it.
	end := min(len(s), i+n+window)
	j := i + n
	for k := 0; k < 20 && j < end && (isWordByte(s[j]) || s[j] == '-' || s[j] == '.'); k++ {
		j++
	}
	if j < end && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	j = blanks(s[:end], j, window)
	if j >= end || s[j] != ':' && s[j] != '=' {
		return false
	}
	j = blanks(s[:end], j+1, window)
	if j < end && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	for k := 0; k < 3; k++ {
		if j+k >= len(s) || strings.IndexByte(" \t\n\r\f\"'&,;\\[", s[j+k]) >= 0 {
			return false
		}
	}
	return true
}

// blanks skips at most n blanks (\s, and \v) from s[j].
func blanks(s string, j, n int) int {
	for k := 0; k < n && j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r' || s[j] == '\f' || s[j] == '\v'); k++ {
		j++
	}
	return j
}

// cookieAfter accepts "cookie" followed by a quote, blanks and ':' or
// '=': a Cookie header or key. The word in prose ("the cookie jar")
// costs no pattern.
func cookieAfter(s string, i, n int) bool {
	j := i + n
	if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	j = blanks(s, j, window)
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

// genericReach bounds what genericValueAfter reads after the anchor: the
// assignment (assignEnd: up to 43 bytes after the keyword, then up to 4
// operator bytes), 21 skipped quotes or blanks, and 161 value bytes.
const genericReach = 43 + 4 + 21 + genericValueMax + 1

// genericValueMax: a value run longer than this is not bounded further
// (gitleaks' generic value is at most 150 bytes, or a base64 run).
const genericValueMax = 160

// genericValueAfter is assignedValueAfter for gitleaks' generic-api-key,
// which also keeps only a secret whose Shannon entropy is above 3.5
// bits: it rejects a value run that holds too few distinct bytes for any
// part of it to reach that. A part of a run cannot hold more distinct
// bytes than the run, nor have more than log2 of their count in entropy,
// and log2(11) is 3.46: a run of at most 10 distinct bytes (11 with the
// '=' a match may take in before it) can only give matches the entropy
// test throws away. Ticket keys, dates and version strings after "key",
// "token" or "api" are such runs, and in a large JSON result every one of
// them cost a search of the rule's window (3 s for 10,000 issue keys in
// a 64 MiB result).
func genericValueAfter(s string, i, n int) bool {
	j := afterAssign(s, i, n)
	if j < 0 {
		return false
	}
	for k := 0; k < 21 && j < len(s) && strings.IndexByte("`'\" \t\n\r\f=\\", s[j]) >= 0; k++ {
		j++
	}
	var seen [256]bool
	distinct, run := 1, 0 // the '=' a match may start with
	seen['='] = true
	for ; j < len(s) && (isWordByte(s[j]) || strings.IndexByte(".=-+/", s[j]) >= 0); j++ {
		if run++; run > genericValueMax {
			return true // too long to bound: let the pattern decide
		}
		if !seen[s[j]] {
			seen[s[j]] = true
			distinct++
		}
	}
	// At the end of the text the run may go on in text not given: accept.
	return run >= 10 && (distinct > 11 || j >= len(s))
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

// merge joins windows (sorted by start) that overlap or touch.
func merge(spans [][2]int) [][2]int {
	if len(spans) < 2 {
		return spans
	}
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

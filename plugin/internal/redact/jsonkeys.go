package redact

import (
	"sort"
	"strings"
)

// sensitiveWords end a JSON key whose value is a secret ("session_token",
// "db_password", "X-Api-Key"). The key must end with one of them, so
// "max_tokens" or "token_count" are left alone. "pass" counts only as a
// word of its own ("pass", "db_pass", "smtpPass"), not in "bypass".
var sensitiveWords = []string{"password", "passwd", "pwd", "passphrase", "pass", "secret", "token", "apikey", "api_key", "api-key",
	"accesskey", "access_key", "access-key", "privatekey", "private_key", "private-key", "authorization",
	"cookie", "credential", "credentials", "sessionid", "session_id", "session-id"}

// SensitiveName reports whether an environment variable or JSON key
// names a secret: it ends with a sensitive word (GITHUB_TOKEN,
// DB_PASSWORD, OPENAI_API_KEY, SMTP_PASS), in any case.
func SensitiveName(name string) bool { return sensitiveKey(name) }

// maxKey is the longest key that counts (decoded).
const maxKey = 128

func sensitiveKey(key string) bool {
	if key == "" || len(key) > maxKey {
		return false
	}
	for i := 0; i < len(key); i++ {
		if !isKeyByte(key[i]) {
			return false
		}
	}
	k := strings.ToLower(key)
	for _, w := range sensitiveWords {
		if !strings.HasSuffix(k, w) {
			continue
		}
		if w == "token" && paging(key) {
			return false
		}
		if w != "pass" {
			return true
		}
		// pass: the whole key, after a separator, or a camel-case word.
		if i := len(k) - 4; i == 0 || strings.IndexByte("_.-", k[i-1]) >= 0 ||
			key[i] == 'P' && (key[i-1] >= 'a' && key[i-1] <= 'z' || key[i-1] >= '0' && key[i-1] <= '9') {
			return true
		}
	}
	return false
}

// paging: a token key that names a position in a listing
// (next_page_token, pageToken, continuation-token, NextContinuationToken,
// cursor_token, sync_token): the service hands it out to be sent back,
// and it grants nothing on its own. (CURSOR_API_KEY is Cursor's.)
func paging(key string) bool {
	if len(key) < 5 || !strings.EqualFold(key[len(key)-5:], "token") {
		return false
	}
	for _, w := range keyWords(key) {
		switch w {
		case "page", "continuation", "next", "cursor", "pagination", "sync", "resume",
			"nextpage", "pagetoken", "nextpagetoken", "continuationtoken", "synctoken":
			return true
		}
	}
	return false
}

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// JSON inside a JSON string is escaped once more per level: the quote
// that delimits a string of level L has quoteRun[L] backslashes before
// it, the \u escape 2^L. Levels 0 to 4 are followed: a text block
// holding a document, logged again as a tool's arguments, and so on.
var quoteRun = [5]int{0, 1, 3, 7, 15}

// maxRawKey bounds how far back a key's opening quote is looked for: 128
// bytes, each possibly a \u escape at level 4.
const maxRawKey = maxKey * 21

// maxBlank bounds the blanks around a key's colon.
const maxBlank = 1024

// jsonScan replaces the string value of every sensitive key, at the top
// level of JSON text (quote `"`) and in JSON held in a JSON string, to
// four levels deep (quotes `\"`, `\\\"`...). It is a tolerant scanner,
// not a parser: it works on any text and never fails, so a truncated or
// malformed document is still redacted as far as it goes.
//
// It runs inside the one pass that finds every anchor: a sensitive key
// ends with a sensitive word and a quote, so the words are anchors, and
// each is checked where it stands: backward to the key's opening quote
// (the same level, key bytes only, \u escapes decoded), forward past the
// colon to the value's opening quote, then on to the value's end. A key
// written with a \u escape is found from the escape. Keys are taken left
// to right, and one inside a value already replaced is not looked at,
// as a scanner reading string after string would do.
//
// It sees the text as the known values left it: their edits are stepped
// over as over one byte that is no key byte, blank, quote or backslash,
// which is what their markers are.
type jsonScan struct {
	s     string
	edits []edit // the known values' edits
	sweep int    // a key must open here or later
	esc   int    // \u escapes before here were looked at with their key
	out   []edit
	n     int
}

// at is s[i], or 0xff inside an edit.
func (j *jsonScan) at(i int) byte {
	if len(j.edits) != 0 {
		k := sort.Search(len(j.edits), func(k int) bool { return j.edits[k].end > i })
		if k < len(j.edits) && j.edits[k].start <= i {
			return 0xff
		}
	}
	return j.s[i]
}

// word looks at a sensitive word at s[p:p+n]: it may end a key.
func (j *jsonScan) word(p, n int) {
	c := p + n
	r := 0
	for c+r < len(j.s) && r < 16 && j.at(c+r) == '\\' {
		r++
	}
	if c+r >= len(j.s) || j.at(c+r) != '"' {
		return
	}
	if L := levelOf(r); L >= 0 && !j.inEdit(p, c) {
		j.key(c, L)
	}
}

func (j *jsonScan) inEdit(a, b int) bool {
	if len(j.edits) == 0 {
		return false
	}
	k := sort.Search(len(j.edits), func(k int) bool { return j.edits[k].end > a })
	return k < len(j.edits) && j.edits[k].start < b
}

func levelOf(run int) int {
	for L, r := range quoteRun {
		if r == run {
			return L
		}
	}
	return -1
}

// escape looks at the \u at s[p:p+2]: it may be part of a key, whose end
// is found by reading on.
func (j *jsonScan) escape(p int) {
	if p < j.esc || j.s[p+1] != 'u' || j.inEdit(p, p+2) {
		return
	}
	r := 1
	for p-r >= 0 && r <= 16 && j.at(p-r) == '\\' {
		r++
	}
	L := -1
	for l := range quoteRun {
		if 1<<l == r {
			L = l
		}
	}
	if L < 0 {
		return
	}
	i := p - r + 1
	for start := i; i < len(j.s) && i-start < maxRawKey; {
		if isKeyByte(j.at(i)) {
			i++
			continue
		}
		run := 0
		for i+run < len(j.s) && j.at(i+run) == '\\' {
			run++
		}
		if i+run >= len(j.s) {
			break
		}
		if c := j.at(i + run); c == 'u' && run == 1<<L && i+run+5 <= len(j.s) && !j.inEdit(i, i+run+5) && isHex4(j.s[i+run+1:i+run+5]) {
			i += run + 5
			continue
		} else if c == '"' && run == quoteRun[L] {
			j.esc = i
			j.key(i, L)
			return
		}
		break
	}
	j.esc = i
}

func isHex4(h string) bool {
	for i := 0; i < 4; i++ {
		if c := h[i] | 0x20; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// key looks at a key of level L whose content ends at c (where its
// closing quote's backslashes start): if it is sensitive and its value
// a string, the value is replaced.
func (j *jsonScan) key(c, L int) {
	b := quoteRun[L]
	k := c
	for k > 0 && c-k < maxRawKey {
		if ch := j.at(k - 1); isKeyByte(ch) || ch == '\\' {
			k--
			continue
		}
		break
	}
	if k == 0 || k == c || j.at(k-1) != '"' {
		return
	}
	o := k - 1
	r := 0
	for o-r > 0 && r < b && j.at(o-r-1) == '\\' {
		r++
	}
	if r < b || o-b < j.sweep {
		return
	}
	name, ok := decodeKey(j.s[k:c], L)
	if !ok || !sensitiveKey(name) {
		return
	}
	// optional blanks, a colon, optional blanks, an opening quote
	e := j.blanks(c + b + 1)
	if e >= len(j.s) || j.at(e) != ':' {
		return
	}
	e = j.blanks(e + 1)
	for x := 0; x < b; x++ {
		if e+x >= len(j.s) || j.at(e+x) != '\\' {
			return
		}
	}
	if e+b >= len(j.s) || j.at(e+b) != '"' {
		return
	}
	vs := e + b + 1
	ve, closed := stringEnd(j.s, vs, b, j.edits)
	if ve > vs && !j.isMarker(vs, ve) {
		j.out = append(j.out, edit{start: vs, end: ve, repl: Marker})
		j.n++
	}
	j.sweep = ve
	if closed {
		j.sweep += b + 1
	}
}

// isMarker reports whether s[a:b], the known values' edits applied, is
// Marker: nothing to replace.
func (j *jsonScan) isMarker(a, b int) bool {
	if !j.inEdit(a, b) {
		return j.s[a:b] == Marker
	}
	k := sort.Search(len(j.edits), func(k int) bool { return j.edits[k].end > a })
	e := j.edits[k]
	return e.start == a && e.end == b && e.repl == Marker
}

func (j *jsonScan) blanks(i int) int {
	for n := 0; i < len(j.s) && n < maxBlank; n++ {
		switch j.at(i) {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		break
	}
	return i
}

// decodeKey decodes a key's raw bytes at level L: key bytes, and \u
// escapes of key bytes.
func decodeKey(raw string, L int) (string, bool) {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw, len(raw) <= maxKey
	}
	var buf [maxKey]byte
	n := 0
	for i := 0; i < len(raw); {
		if n == maxKey {
			return "", false
		}
		if raw[i] != '\\' {
			buf[n] = raw[i]
			n, i = n+1, i+1
			continue
		}
		r := 0
		for i+r < len(raw) && raw[i+r] == '\\' {
			r++
		}
		if r != 1<<L || i+r+5 > len(raw) || raw[i+r] != 'u' || !isHex4(raw[i+r+1:i+r+5]) {
			return "", false
		}
		v := 0
		for _, h := range []byte(raw[i+r+1 : i+r+5]) {
			h |= 0x20
			if h >= 'a' {
				h -= 'a' - 10
			} else {
				h -= '0'
			}
			v = v<<4 | int(h)
		}
		if v >= 0x80 || !isKeyByte(byte(v)) {
			return "", false
		}
		buf[n] = byte(v)
		n, i = n+1, i+r+5
	}
	return string(buf[:n]), true
}

// stringEnd finds the closing quote of a string whose content starts at
// i, stepping over edits as over a plain byte. With b = 0 (quote `"`), a
// backslash escapes the next byte. With b backslashes before the quote
// (a string inside a JSON string, b = 1, 3, 7...), the string ends at
// exactly b backslashes and a quote; a quote after more is escaped inside
// it, and a quote after fewer means the text left the string: it ends
// there, not terminated. An unterminated string ends at the end of s.
func stringEnd(s string, i, b int, edits []edit) (int, bool) {
	k := sort.Search(len(edits), func(k int) bool { return edits[k].end > i })
	seg := i // backslash runs start no earlier than here
	for i < len(s) {
		next := len(s)
		if k < len(edits) {
			next = edits[k].start
		}
		if i >= next {
			i, seg = edits[k].end, edits[k].end
			k++
			continue
		}
		q := strings.IndexByte(s[i:next], '"')
		if q < 0 {
			i = next
			continue
		}
		q += i
		run := 0
		for q-run > seg && s[q-run-1] == '\\' {
			run++
		}
		switch {
		case b == 0 && run%2 == 0, b > 0 && run == b:
			return q - run, true
		case b > 0 && run < b:
			return q - run, false
		}
		i = q + 1
	}
	return len(s), false
}

// jsonKeys is the JSON-key pass alone, on text without edits.
func jsonKeys(s string) (string, int) {
	j := jsonScan{s: s}
	sc := theScanner()
	sc.scan(s, 0, len(s), func(p int, a int32) {
		an := &sc.anchors[a]
		if an.json {
			j.word(p, an.n)
		}
		if an.esc {
			j.escape(p)
		}
	})
	t := newText(s)
	t.edits = j.out
	t.reindex()
	return t.String(), j.n
}

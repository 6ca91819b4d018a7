package redact

import (
	"slices"
	"strings"
)

// The shape stage judges each token run by mechanisms, not by a list of
// vendors: what frames the value (an armour header, PuTTY's fields, an
// assignment whose name says key, token, secret, password or
// credential), the words around it in prose (a credential word or a
// product's name within a few words), and, for text that is
// percent-encoded or JSON-escaped, the same judgement on the decoded
// text, its edits mapped back onto the original bytes. All of it rides
// on the stage's one walk over the token runs (tokenRuns) and on the
// marks the scanner's one pass found: no mechanism reads the whole text
// again.

// shapes returns the shape stage's edits on s (sorted, disjoint); marks
// are the offsets of markLits in s; depth counts the decodings s went
// through.
func shapes(s string, marks []int, depth int) []edit {
	var f found
	for _, m := range marks {
		if e, ok := marked(s, m); ok {
			f.add(e)
		}
	}
	framed := f.done()
	f.es = append([]edit(nil), framed...)
	namedValues(s, &f)
	k, decodedTo := 0, 0
	tokenRuns(s, func(a, b int) {
		for k < len(framed) && framed[k].end <= a {
			k++
		}
		if k < len(framed) && framed[k].start <= a {
			return // inside a block already taken
		}
		if depth < maxDecode && a >= decodedTo && encoded(s, a, b) {
			var es []edit
			es, decodedTo = decodeSpan(s, a, b, depth)
			f.add(es...)
		}
		a = pastEscape(s, a, b)
		if namedByIdentifier(s, a) {
			return // "commit": "<sha>", sha256:<hex>: no mechanism takes it
		}
		// A value assigned to a name is read only when its run is random
		// itself: identifiers and paths in code are most runs.
		// The run's letters and digits are counted once (trimming drops
		// none of them): whether it reads as random settles most runs. An
		// assigned value is read when the run is random or is a piece of
		// a longer value (AAAA...:APA91b...).
		v0, v1 := trimValue(s, a, b)
		st := statsOf(s[v0:v1])
		if randomStats(s[a:b], st) || gluedValue(s, a, b) {
			if e, ok := assigned(s, a, b); ok {
				f.add(e)
				return
			}
		}
		if basicPair(s[v0:v1]) && !pageKey(s, v0) {
			f.add(edit{v0, v1, "[REDACTED:" + kindCredential + "]"})
			return
		}
		rnd := randomishStats(s[v0:v1], minToken, st) || shapedToken(s[v0:v1])
		if e, ok := judgeRun(s, a, b, rnd); ok {
			f.add(e)
			return
		}
		if !rnd {
			return
		}
		if e, ok := windowed(s, v0, v1); ok {
			f.add(e)
		}
	})
	return f.done()
}

// namedByIdentifier: the word right before s[a] (over blanks, quotes
// and a colon) is an identifier's (commit, sha256, uuid, trace_id...),
// which every mechanism would read as naming an identifier, a hash or a
// reference. "id" alone reads on: "private key id" next to an account
// is the key's id.
func namedByIdentifier(s string, a int) bool {
	var buf [1]word
	w := proseWords(buf[:0], s, a, -1, 1)
	if len(w) == 0 {
		return false
	}
	n := nounOf(w[0].w)
	return n != "id" && identifierWord(strings.ToLower(n))
}

// gluedValue: the run s[a:b] is glued to more of a value by a byte
// runs do not hold (AAAA...:APA91b..., user@host!x): a separator with a
// run byte past it.
func gluedValue(s string, a, b int) bool {
	return b+1 < len(s) && !runByte[s[b]] && valueByte(s[b]) && runByte[s[b+1]] ||
		a > 1 && !runByte[s[a-1]] && valueByte(s[a-1]) && runByte[s[a-2]]
}

// pageKey: the value at s[v] is assigned to a page's or a cursor's name
// (next_page_token): an opaque position, not a credential.
func pageKey(s string, v int) bool {
	k, ok := opKey(s, v)
	return ok && paging(k)
}

// shapedToken: a random value in a shape randomish turns down, as
// vendors publish them: after "1//", dotted (kubeadm's abcdef.<16>), or
// hex tagged with a few capitals (New Relic's <36 hex>NRAL).
func shapedToken(v string) bool {
	return slashedToken(v) || dottedToken(v) || taggedHex(v)
}

// dottedToken: two parts joined by one dot, letters and digits in one
// case, the first of 4 to 12 bytes, the second of 16 or more, with
// digits and letters, random: no host or class name has that shape.
func dottedToken(v string) bool {
	k := strings.IndexByte(v, '.')
	if k < 4 || k > 12 || len(v)-k-1 < 16 || strings.IndexByte(v[k+1:], '.') >= 0 {
		return false
	}
	st := statsOf(v[k+1:])
	first := statsOf(v[:k])
	return first.other == 0 && st.other == 0 && st.digit > 0 && st.lower+st.upper > 0 && !(st.lower > 0 && st.upper > 0) &&
		entropy(v[k+1:]) >= 3.0
}

// taggedHex: 32 hex digits or more with up to five capitals before or
// after them (a product's tag), the hex random.
func taggedHex(v string) bool {
	if len(v) < 36 {
		return false
	}
	a, b := 0, len(v)
	for a < 5 && isUpperByte(v[a]) {
		a++
	}
	for len(v)-b < 5 && b > a && isUpperByte(v[b-1]) {
		b--
	}
	if a == 0 && b == len(v) || b-a < 32 {
		return false
	}
	core := v[a:b]
	st := statsOf(core)
	return st.other == 0 && st.upper == 0 && st.hexOnly() && st.digit > 0 && st.hexLetters*8 >= st.n && entropy(core) >= 3.0
}

// slashedToken: a random body after "//" that starts no URL or path
// (Google's refresh tokens: 1//0...): randomish turns down any "//".
func slashedToken(v string) bool {
	k := 1
	for k < 4 && k+1 < len(v) && !(v[k] == '/' && v[k+1] == '/') {
		k++
	}
	return k < 4 && k+1 < len(v) && strings.LastIndex(v, "//") == k && strings.IndexByte(v[:k], '/') < 0 && isAlnum(v[0]) && randomish(v[k+2:], minToken)
}

// found collects edits from the mechanisms, in any order; done sorts
// them and merges those that overlap into one.
type found struct{ es []edit }

func (f *found) add(es ...edit) { f.es = append(f.es, es...) }

func (f *found) done() []edit {
	if len(f.es) < 2 {
		return f.es
	}
	slices.SortFunc(f.es, func(x, y edit) int { return x.start - y.start })
	out := f.es[:1]
	for _, e := range f.es[1:] {
		if top := &out[len(out)-1]; e.start < top.end {
			top.end = max(top.end, e.end)
		} else {
			out = append(out, e)
		}
	}
	return out
}

// pastEscape skips a JSON escape (\n, \r, \t) that a run starts with: in
// "...\nAGE-SECRET-KEY-1..." the token starts after the n.
func pastEscape(s string, a, b int) int {
	if a > 0 && s[a-1] == '\\' && a+1 < b && (s[a] == 'n' || s[a] == 'r' || s[a] == 't') {
		return a + 1
	}
	return a
}

// assigned judges the value that holds the run s[a:b] when it is
// assigned to a name (NAME = value, "name": "value", name: value,
// NAME=value): whatever bytes the value holds (':', '/', '+', '='), it
// goes whole when the name says it is a credential and the value is not
// code or an identifier.
func assigned(s string, a, b int) (edit, bool) {
	key, v0, v1, ok := assignment(s, a, b)
	// The name first: most runs are assigned to no credential's name
	// ("commit", "uuid"), and a one-word name costs no split.
	if !ok || !(credentialName(key) || sharedCertificate(key, s[v0:v1])) || !randomValue(s[v0:v1]) || bookkeeping(strings.ToLower(wordBefore(s, v0, key))) {
		return edit{}, false
	}
	if !secretValue(s[v0:v1], key) {
		return edit{}, false
	}
	return edit{v0, v1, "[REDACTED:" + kindCredential + "]"}, true
}

// valueByte: a byte an assigned value may hold besides a run's (the
// separators of FCM's keys, Google's refresh tokens, connection strings).
func valueByte(c byte) bool {
	return runByte[c] || strings.IndexByte(":@!#$*^|~", c) >= 0
}

// maxValue bounds how far a value is read around its run.
const maxValue = 1024

// assignment finds the name the run s[a:b] is assigned to and the whole
// value [v0, v1): the run widened over value bytes, after an operator
// and blanks (NAME = value, "name": "value"), or after the name glued
// to it by '=' or ':' (NAME=abc:def).
func assignment(s string, a, b int) (key string, v0, v1 int, ok bool) {
	r0 := a
	for r0 > 0 && a-r0 < maxValue && valueByte(s[r0-1]) {
		r0--
	}
	v1 = b
	for v1 < len(s) && v1-b < maxValue && valueByte(s[v1]) {
		v1++
	}
	for v1 > b && strings.IndexByte(".,:;!", s[v1-1]) >= 0 {
		v1-- // what ends a sentence
	}
	// Glued: NAME=value or NAME:value, the name starting the widened
	// run; else the name before an operator. A glued name that is no
	// credential's (AAAA:APA91b... after FCM_SERVER_KEY =) gives way to
	// the one before.
	glued, g0 := "", 0
	if g := strings.IndexAny(s[r0:v1], "=:"); g > 0 && isKeyName(s[r0:r0+g]) {
		glued, g0 = s[r0:r0+g], r0+g+1
		for g0 < v1 && (s[g0] == '=' || s[g0] == ':') {
			g0++
		}
		if credentialName(glued) {
			return glued, g0, v1, true
		}
	}
	if k, ok := opKey(s, r0); ok {
		return k, r0, v1, true
	}
	if glued != "" {
		return glued, g0, v1, true
	}
	return "", 0, 0, false
}

// opKey reads back from a value starting at s[v]: its opening quote
// (escaped or not), blanks, an assignment operator (=, :, :=, =>), blanks,
// the name's closing quote, then the name.
func opKey(s string, v int) (string, bool) {
	i := v
	if i > 0 && (s[i-1] == '"' || s[i-1] == '\'' || s[i-1] == '`') {
		i--
		for i > 0 && s[i-1] == '\\' {
			i--
		}
	}
	i = blanksBack(s, i)
	if i == 0 {
		return "", false
	}
	switch s[i-1] {
	case '=':
		i--
		if i > 0 && strings.IndexByte(":=!<>", s[i-1]) >= 0 {
			i--
		}
	case ':':
		i--
	case '>':
		if i < 2 || s[i-2] != '=' {
			return "", false
		}
		i -= 2
	default:
		return "", false
	}
	i = blanksBack(s, i)
	if i > 0 && (s[i-1] == '"' || s[i-1] == '\'' || s[i-1] == '`') {
		i--
		for i > 0 && s[i-1] == '\\' {
			i--
		}
	}
	j := keyStart(s, i)
	if j == i {
		return "", false
	}
	return s[j:i], true
}

// wordBefore is the word before a one-word name (a qualifier in prose:
// "public key: ..."), found by reading back from the value at v.
func wordBefore(s string, v int, key string) string {
	k := strings.LastIndex(s[max(0, v-len(key)-16):v], key)
	if k < 0 || strings.IndexAny(key, "_.-") >= 0 {
		return ""
	}
	j := max(0, v-len(key)-16) + k
	if j == 0 || s[j-1] != ' ' {
		return ""
	}
	i := keyStart(s, j-1)
	return s[i : j-1]
}

func blanksBack(s string, i int) int {
	for k := 0; k < 8 && i > 0 && (s[i-1] == ' ' || s[i-1] == '\t'); k++ {
		i--
	}
	return i
}

// credentialName: a name whose last word (modifiers such as value or
// prod aside) names a credential: key, token, secret, password,
// passphrase, credential(s), api (cf_api), license, or one glued to it
// (apiKey, PrivateKey), and no word of which makes it bookkeeping
// (page_token, cache_key, public_key) or an identifier (key_id).
func credentialName(key string) bool {
	// One lower-case word (JSON's "commit", "checksum", "uuid") needs no
	// split: most names a run is assigned to are such.
	var one [1]string
	words := one[:]
	if plainWord(key) {
		one[0] = key
	} else {
		words = keyWords(key)
	}
	for _, w := range words {
		if bookkeeping(w) {
			return false
		}
	}
	k := len(words) - 1
	for k > 0 && modifierWord(words[k]) {
		k--
	}
	noun := words[k]
	// MJ_APIKEY_PRIVATE, API_KEY_PRIVATE: the private half of a key
	// pair whose public half is named beside it.
	if noun == "private" && k > 0 && credentialNoun(words[k-1]) {
		return true
	}
	if identifierWord(noun) || strings.HasSuffix(noun, "publickey") || strings.HasSuffix(noun, "keyid") {
		return false
	}
	if noun == "pass" && len(words) == 1 {
		return false // "PASS: TestX"; pass= alone is the key_value rule's
	}
	switch noun {
	case "api", "license", "licence", "licensekey", "pat", "dsn":
		return true
	}
	return credentialNoun(noun) || strings.HasSuffix(noun, "key") && len(noun) > 3 && k > 0 || strings.HasSuffix(noun, "privatekey")
}

// codeIdent: an identifier of code as a value (creds.password,
// authToken): dotted, or reading as words, or with no digit. Random hex
// or base62 that happens to start with a letter is no identifier.
func codeIdent(v string) bool {
	if !identPath(v) {
		return false
	}
	if st := statsOf(v); st.hexOnly() && st.digit > 0 && len(v) >= 16 {
		return false
	}
	return strings.IndexByte(v, '.') >= 0 || wordlike(v) || !strings.ContainsAny(v, "0123456789")
}

// sharedCertificate: a name that says certificate (AGORA_APP_CERTIFICATE,
// app_cert) over a value no X.509 certificate can be: hex, or 64 bytes
// or fewer, not DER's base64 (MII...) nor PEM. Such a "certificate" is a
// shared secret.
func sharedCertificate(key, v string) bool {
	if !hasFoldSuffix(key, "cert") && !hasFoldSuffix(key, "certificate") {
		return false // most names, without a split
	}
	ws := keyWords(key)
	n := ws[len(ws)-1]
	if n != "certificate" && n != "cert" || strings.HasPrefix(v, "MII") || strings.HasPrefix(v, "-----") {
		return false
	}
	return isHex(v) || len(v) <= 64
}

// hasFoldSuffix: s ends with the lower-case suffix, in any case.
func hasFoldSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// plainWord: lower-case letters and digits only, as keyWords would
// return it whole.
func plainWord(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return k != ""
}

// secretValue: an assigned value that is not code, a path, a URL, a
// placeholder or an identifier, and whose letters and digits read as
// random.
func secretValue(v, key string) bool {
	if dottedToken(v) || taggedHex(v) {
		return true
	}
	if !randomValue(v) || codeValue(v, key) || codeIdent(v) || isUUID(v) || publicKeyDER(v) || hostLed(v) || slugID(v) || ticketKey(v) || fileName(v) || dated(v) {
		return false
	}
	if st := statsOf(v); st.hexOnly() {
		noun := keyWords(key)
		return st.hexLetters > 0 && entropy(v) >= 2.8 && !(len(noun) == 1 && noun[0] == "key" && digest(v))
	}
	return entropy(v) >= 3.2 && !sequence(v) && !wordlike(v)
}

// randomValue: what secretValue asks of the value's bytes alone, cheap
// enough to ask of every run.
func randomValue(v string) bool { return randomStats(v, statsOf(v)) }

// randomStats is randomValue with v's stats counted already.
func randomStats(v string, st charStats) bool {
	if len(v) < 12 || v[0] == '/' || v[0] == '.' || v[0] == '~' || v[0] == '$' || strings.Contains(v, "://") {
		return false
	}
	return st.n >= 12 && !st.wordy() && (st.digit > 0 || st.lower > 1 && st.upper > 1)
}

// slugID: an identifier made of words joined by '-', '_' or '.', in one
// case, with short codes among them (HELDOUT-END-FACT-ZQX7781-PLUTONIUM,
// api-server-7f8d9c6b5-x2k4p): half its parts or more read as words and
// none is longer than 12 bytes, where a token's random body is one long
// part (AGE-SECRET-KEY-1<58>, NRAK-<27>).
func slugID(v string) bool {
	parts, words := 0, 0
	lower, upper := false, false
	for i := 0; i < len(v); {
		j := i
		for j < len(v) && isAlnum(v[j]) {
			j++
		}
		if j-i > 12 || j == i && j < len(v) && v[j] != '-' && v[j] != '_' && v[j] != '.' {
			return false
		}
		if j > i {
			st := statsOf(v[i:j])
			lower, upper = lower || st.lower > 0, upper || st.upper > 0
			parts++
			if st.digit == 0 && j-i >= 3 && st.vowels > 0 && wordlike(v[i:j]) {
				words++
			}
		}
		i = j + 1
	}
	return parts >= 3 && !(lower && upper) && words >= 2 && 2*words >= parts
}

// windowed judges a random run in prose by the words around it on its
// line: a credential word (key, token, secret, password, credential,
// license, API) among the words before it, reached over link words
// ("is", "the"), product names (a capitalised word: "the Deepgram key
// is ...") and at most one other word; a product's name right before a
// colon ("AssemblyAI: ..."); or, after it, a link word then such a chain
// ("... is our Deepgram key"). An identifier's word (id, commit, trace,
// sha...) nearer to the value than the credential word makes it an
// identifier.
//
// The caller has trimmed the run to s[v0:v1] and found it random.
func windowed(s string, v0, v1 int) (edit, bool) {
	v := s[v0:v1]
	if slugID(v) || strings.IndexByte(v, '.') >= 0 && identPath(v) && !dottedToken(v) {
		return edit{}, false
	}
	var bufB, bufA [6]word // on the stack
	// The nearest word alone settles most random runs in data: the key
	// of a hash or an id ("commit", "sha256", "trace_id").
	// ("private key id" reads on.)
	if w := proseWords(bufB[:0], s, v0, -1, 1); len(w) > 0 {
		if n := nounOf(w[0].w); n != "id" && identifierWord(n) {
			return edit{}, false
		}
	}
	before := proseWords(bufB[:0], s, v0, -1, 6)
	if len(before) > 1 && nounOf(before[0].w) == "id" && nounOf(before[1].w) == "key" && nearAccount(s, v0, v1) {
		return edit{v0, v1, "[REDACTED:" + kindKeyID + "]"}, true // "private key id ..."
	}
	if len(before) > 0 && identifierWord(nounOf(before[0].w)) {
		return edit{}, false
	}
	if len(before) > 0 && vendorColon(s, before[0], v0, v1) {
		w0, w1 := widenProse(s, v0, v1)
		return edit{w0, w1, "[REDACTED:" + kindCredential + "]"}, true
	}
	after := proseWords(bufA[:0], s, v1, 1, 4)
	if len(after) > 0 && strings.Trim(s[v1:after[0].a], " \t(") != "" {
		after = nil // a comment or another field follows, not prose about it
	}
	if credentialChain(before, v, true) || credentialChain(after, v, false) {
		w0, w1 := widenProse(s, v0, v1) // the whole value, not a piece of it
		return edit{w0, w1, "[REDACTED:" + kindCredential + "]"}, true
	}
	return sentenceWindow(s, v0, v1)
}

// word is a word of prose and where it lies.
type word struct {
	w    string // as written
	a, b int
}

// proseWords appends to out up to n words before s[i] (dir -1, nearest
// first, within 80 bytes) or after it (dir 1, within 48), on its line.
func proseWords(out []word, s string, i, dir, n int) []word {
	lim := 80
	if dir > 0 {
		lim = 48
	}
	j := i
	for len(out) < n && abs(j-i) < lim {
		// Skip what is between words: blanks, quotes, a colon or a
		// comma. Code's punctuation (a call's parenthesis, an operator,
		// a dot) or a line's end stops the window.
		for abs(j-i) < lim {
			c := byte(0)
			if dir < 0 && j > 0 {
				c = s[j-1]
			} else if dir > 0 && j < len(s) {
				c = s[j]
			}
			if c == 0 || isWordByte(c) {
				break
			}
			if strings.IndexByte(" \t\"'`:,", c) < 0 && !(c == '(' && len(out) == 0 && dir > 0) {
				return out
			}
			j += dir
		}
		k := j
		if dir < 0 {
			for k > 0 && (isWordByte(s[k-1]) || s[k-1] == '-') {
				k--
			}
			if k == j {
				return out
			}
			out = append(out, word{s[k:j], k, j})
		} else {
			for k < len(s) && (isWordByte(s[k]) || s[k] == '-') {
				k++
			}
			if k == j {
				return out
			}
			out = append(out, word{s[j:k], j, k})
		}
		j = k
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// capitalised: a product's name as prose writes one (Deepgram,
// AssemblyAI, AWS), not a sentence's first common word: it has a
// capital after its first byte, or it is no common English word.
func capitalised(w string) bool {
	if len(w) < 2 || !isUpperByte(w[0]) {
		return false
	}
	if labelWord(strings.ToLower(w)) {
		return false
	}
	for i := 1; i < len(w); i++ {
		if isUpperByte(w[i]) || isDigit(w[i]) {
			return true
		}
	}
	return true
}

// labelWord: a common word that labels a value in output (Expected:,
// Got:, Result:), not a product.
func labelWord(w string) bool {
	switch w {
	case "expected", "got", "want", "actual", "result", "results", "output", "input", "value", "values", "data", "error",
		"warning", "info", "debug", "note", "response", "request", "body", "header", "line", "status", "state", "message",
		"parent", "tree", "object", "blob", "tag", "merge", "head", "base", "old", "new", "before", "after", "from", "to",
		"source", "target", "salt", "seed", "iv", "nonce", "challenge", "address", "account", "user", "owner", "author",
		"pass", "fail", "ok", "skip", "done", "todo", "fixme", "usage", "example", "default",
		"the", "a", "an", "this", "that", "it", "see", "use", "set", "run", "and", "or", "but", "with", "for", "in", "on":
		return true
	}
	return false
}

// vendorColon: "<Product>: <value>", the product's name right before a
// colon and the value.
func vendorColon(s string, w word, v0, v1 int) bool {
	if !capitalised(w.w) || identifierWord(nounOf(w.w)) || w.a > 0 && strings.IndexByte("\"'`", s[w.a-1]) >= 0 {
		return false // a key in JSON or a dict is no product's name
	}
	for _, k := range keyWords(w.w) {
		if bookkeeping(k) {
			return false
		}
	}
	if s[w.b] != ':' || strings.Trim(s[w.b+1:v0], " \t") != "" {
		return false
	}
	// A random token, not a path or a name: hex of 32 digits or more,
	// or both cases and digits; letters, digits and - _ + = only.
	st := statsOf(s[v0:v1])
	if !(st.hexOnly() && st.n >= 32 && st.digit > 0 && st.hexLetters > 0 || st.lower > 0 && st.upper > 0 && st.digit > 0 && st.n >= 20) {
		return false
	}
	for _, c := range []byte(s[v0:v1]) {
		if !isAlnum(c) && strings.IndexByte("-_+=", c) < 0 {
			return false
		}
	}
	return true
}

// credentialChain: the words (nearest first) reach a credential word
// over link words, product names and at most one other word, with no
// identifier's word first. After a value (before false) the chain must
// start with a link word ("is", "for").
func credentialChain(ws []word, v string, before bool) bool {
	other, vendor := 0, false
	for i, w := range ws {
		lw := strings.ToLower(w.w)
		last := nounOf(w.w)
		link := linkWord(lw) || lw == "a" || lw == "an" || lw == "for" || lw == "from" || lw == "here"
		if identifierWord(last) || bookkeeping(last) || !before && i == 0 && !link {
			return false
		}
		if credentialWord(lw, last) {
			// A bare "key" right before a digest is a cache's or a
			// store's key, not a credential; a public key is public.
			if i+1 < len(ws) && bookkeeping(strings.ToLower(ws[i+1].w)) {
				return false
			}
			return !(last == "key" && i == 0 && !vendor && digest(v))
		}
		switch {
		case link:
		case capitalised(w.w):
			vendor = true
		default:
			if other++; other > 1 || !before {
				return false
			}
		}
	}
	return false
}

// credentialWord: a word of prose that names a credential.
func credentialWord(lw, last string) bool {
	switch last {
	case "license", "licence", "api", "apikey", "keys":
		return true
	}
	return credentialKey(lw, last)
}

// nounOf is a name's last word (buildID: id; Change-Id: id).
func nounOf(w string) string {
	if plainWord(w) {
		return w
	}
	ws := keyWords(w)
	return ws[len(ws)-1]
}

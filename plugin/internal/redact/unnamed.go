package redact

import "strings"

// Credentials no rule names. gitleaks' catalogue and ctxhook's own rules
// know the formats someone wrote down; vendors add new ones every month,
// and each stays in clear until a rule names it. This last stage judges
// every token by its shape instead, on the text the rules left:
//
//   - a vendor-style prefix (short lower- or upper-case segments, each
//     ended by '_', '-' or '.') and a long body that reads as random
//     (entropy, charset and length; no list of prefixes);
//   - the value of a signing parameter in a URL (sig, X-Amz-Signature,
//     token...);
//   - a key id (private_key_id, key_id) next to the account it belongs to
//     (an e-mail address, client_email);
//   - a random value right after a credential word, in an assignment, in
//     JSON or in prose ("the API key is ...", "... using <token>").
//
// Identifiers are not secrets: a value under an identifier's name (id,
// request_id, trace, sha, digest, commit...), a UUID, a file name with a
// hash in it, a bare hex digest or a ticket key is left alone, and a
// bare token needs a credential word or "using" before it. One linear
// pass over the text; a token costs its length and at most 64 bytes
// looked at before it.

// The kinds this stage writes in its markers.
const (
	kindPrefixed   = "prefixed_token"
	kindSigned     = "signed_url_param"
	kindKeyID      = "account_key_id"
	kindCredential = "credential_value"
)

var unnamedKinds = []string{kindPrefixed, kindSigned, kindKeyID, kindCredential}

// minToken: a run shorter than this holds no value this stage redacts.
const minToken = 16

// runByte: a byte of a token as this stage reads one: letters, digits,
// the separators of prefixes and identifiers, base64's and URL encoding's.
var runByte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = isAlnum(byte(c)) || strings.IndexByte("_-.+/=%~", byte(c)) >= 0
	}
	return
}()

// unnamed returns the changes (sorted, disjoint, as replacements of s's
// bytes) for the credentials in s no rule named.
func unnamed(s string) []edit {
	var out []edit
	tokenRuns(s, func(a, b int) {
		if e, ok := judgeRun(s, a, b); ok {
			out = append(out, e)
		}
	})
	return out
}

// tokenRuns calls f for every run of runByte bytes in s, as long as it
// can be (s[a-1] and s[b] are not runByte), of at least minToken bytes,
// in order. It reads s the way a string search skips ahead: a run of
// minToken bytes starting at or after i, where s[i-1] ends whatever run
// came before, holds s[i+minToken-1]; where that byte is not a run byte,
// no such run starts before it, and the search moves past it without
// reading the bytes between. Prose, whose words are shorter than
// minToken, is read about one byte in several, which matters most
// inside plugin.wasm, where each byte a loop reads costs a turn of it.
func tokenRuns(s string, f func(a, b int)) {
	for i := 0; i+minToken <= len(s); {
		k := i + minToken - 1
		if !runByte[s[k]] {
			i = k + 1
			continue
		}
		a, b := k, k+1
		for a > i && runByte[s[a-1]] {
			a--
		}
		for b < len(s) && runByte[s[b]] {
			b++
		}
		if b-a >= minToken {
			f(a, b)
		}
		i = b + 1
	}
}

// judgeRun decides on the token run s[a:b]: a key=value inside it (a
// URL parameter, an env line) or a value after the words before it.
func judgeRun(s string, a, b int) (edit, bool) {
	// A value glued to its key: name=value, the name a key's bytes.
	if k := strings.IndexByte(s[a:b], '='); k > 0 && isKeyName(s[a:a+k]) && b-(a+k+1) >= 8 {
		v0, v1 := trimValue(s, a+k+1, b)
		key := s[a : a+k]
		param := a == 0 || strings.IndexByte("?&;#", s[a-1]) >= 0
		// A URL in JSON from Go or a browser: '&' written \u0026.
		if a > 0 && s[a-1] == '\\' && len(key) > 5 && key[:5] == "u0026" {
			key, param = key[5:], true
		}
		return judgeValue(s, v0, v1, key, param, false)
	}
	v0, v1 := trimValue(s, a, b)
	return judgeValue(s, v0, v1, "", false, true)
}

// trimValue drops what ends a sentence or a URL from a value: trailing
// dots, commas, and a '/' or '%' that leads nowhere.
func trimValue(s string, a, b int) (int, int) {
	for b > a && strings.IndexByte(".,/%-_", s[b-1]) >= 0 {
		b--
	}
	return a, b
}

// judgeValue decides on the value s[a:b] under key (a name glued to it
// by '='; param: a URL parameter's name) or, with prose, after the words
// before it. The tests that need no words come first and cost no
// allocation: most runs end there.
func judgeValue(s string, a, b int, key string, param, prose bool) (edit, bool) {
	v := s[a:b]
	if len(v) < 8 {
		return edit{}, false
	}
	if param && signingParam(key) && len(v) >= 10 && entropy(v) >= 2.5 {
		return edit{a, b, "[REDACTED:" + kindSigned + "]"}, true
	}
	if len(v) < minToken {
		return edit{}, false
	}
	pref := prefixedToken(v)
	if !pref && !randomish(v, minToken) {
		return edit{}, false
	}
	var words []string
	if prose {
		words = wordsBefore(s, a)
		if len(words) > 0 {
			key = words[0]
		}
	}
	lk := strings.ToLower(key)
	last := lastWord(lk)
	if keyIDName(lk) && randomish(v, 16) && nearAccount(s, a, b) {
		return edit{a, b, "[REDACTED:" + kindKeyID + "]"}, true
	}
	if identifierWord(last) || paging(key) || lk == "key" && digest(v) {
		return edit{}, false
	}
	if pref {
		return edit{a, b, "[REDACTED:" + kindPrefixed + "]"}, true
	}
	if credentialKey(lk, last) || credentialPhrase(words) || usingBefore(words) && strongRandom(v) {
		return edit{a, b, "[REDACTED:" + kindCredential + "]"}, true
	}
	return edit{}, false
}

// isKeyName: the bytes of a key (X-Amz-Signature, sig, DB_TOKEN).
func isKeyName(k string) bool {
	if len(k) > 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; !isWordByte(c) && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// signingParam: a URL parameter that carries a signature or a token.
func signingParam(key string) bool {
	if len(key) > 24 {
		return false
	}
	var buf [24]byte
	for i := 0; i < len(key); i++ {
		buf[i] = lowerTab[key[i]]
	}
	switch string(buf[:len(key)]) {
	case "sig", "signature", "x-amz-signature", "x-goog-signature", "x-amz-security-token", "x-goog-credential",
		"token", "access_token", "id_token", "refresh_token", "auth_token", "api_key", "apikey", "api-key",
		"client_secret", "secret", "password", "code_verifier", "x-ms-signature", "sas", "sastoken":
		return true
	}
	return false
}

// words splits a key into its lower-case words (snake, kebab, dotted and
// camel case) and returns the last one.
func lastWord(lk string) string {
	end := len(lk)
	for end > 0 && !isAlnum(lk[end-1]) {
		end--
	}
	i := end
	for i > 0 && isAlnum(lk[i-1]) {
		i--
	}
	return lk[i:end]
}

// identifierWord: the last word of a name that names an identifier, a
// digest or a position, not a credential.
func identifierWord(w string) bool {
	switch w {
	case "id", "ids", "uuid", "guid", "sha", "sha1", "sha256", "sha512", "md5", "hash", "digest", "checksum", "etag",
		"commit", "trace", "span", "ref", "rev", "revision", "version", "cursor", "build", "run", "job", "number",
		"name", "path", "url", "uri", "file", "filename", "fingerprint", "integrity", "thumbprint", "request", "req",
		"ticket", "issue", "key_id", "keyid", "nonce", "idempotency", "image", "layer", "container", "session":
		return true
	}
	// camelCase: requestId, traceID.
	return false
}

// keyIDName: a key naming a key's id (GCP's private_key_id, key_id,
// access_key_id): public alone, a credential's half next to its account.
func keyIDName(lk string) bool {
	var buf [32]byte
	n := 0
	for i := 0; i < len(lk); i++ {
		if c := lk[i]; c != '_' && c != '-' && c != '.' {
			if n == len(buf) {
				return false
			}
			buf[n] = c
			n++
		}
	}
	return n <= 24 && strings.HasSuffix(string(buf[:n]), "keyid")
}

// nearAccount: an account is named within 1 KiB of s[a:b]: an e-mail
// address or a client_email / account key.
func nearAccount(s string, a, b int) bool {
	w := s[max(0, a-1024):min(len(s), b+1024)]
	if strings.Contains(w, "client_email") || strings.Contains(w, "account") {
		return true
	}
	for i := strings.IndexByte(w, '@'); i >= 0; {
		if i > 0 && isWordByte(w[i-1]) {
			j := i + 1
			for j < len(w) && (isAlnum(w[j]) || w[j] == '-' || w[j] == '.') {
				j++
			}
			if d := w[i+1 : j]; strings.Contains(d, ".") && len(d) >= 4 {
				return true
			}
		}
		k := strings.IndexByte(w[i+1:], '@')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return false
}

// credentialKey: a key or word that names a credential (CF_API_TOKEN,
// apiKey, password, "credential"), unless its qualifier makes it a
// public or bookkeeping one (public_key, cache_key, sort_key).
func credentialKey(lk, last string) bool {
	// What pages, syncs or lists is not a credential (next_page_token,
	// continuation-token, sync_token).
	for _, q := range []string{"page", "continuation", "next", "cursor", "sync", "pagination", "resume"} {
		if strings.Contains(lk, q) {
			return false
		}
	}
	switch last {
	case "token", "tokens", "secret", "secrets", "password", "passwd", "passphrase", "pwd", "credential", "credentials",
		"apikey", "pat", "signature", "sig":
		return true
	case "key":
		for _, q := range []string{"public", "cache", "sort", "partition", "primary", "foreign", "object", "row", "idempotency",
			"dedup", "lookup", "routing", "hash", "shard", "map", "group", "s3", "storage_object", "ssh", "blob"} {
			if strings.Contains(lk, q) {
				return false
			}
		}
		return true
	}
	// camel case: apiKey, accessToken, clientSecret.
	for _, w := range []string{"token", "secret", "password", "apikey", "credential"} {
		if strings.HasSuffix(lk, w) && !strings.HasSuffix(lk, "tokens") {
			return true
		}
	}
	return false
}

// wordsBefore returns up to four words before s[a] on its line, within
// 64 bytes, nearest first, lower-cased; a key in quotes counts as a
// word ("api_key": "..." gives api_key).
func wordsBefore(s string, a int) []string {
	lo := max(0, a-64)
	var out []string
	i := a
	for len(out) < 4 && i > lo {
		// Skip what joins a word to its value: blanks, quotes, ':', '=',
		// backslashes of escaped JSON, '>' of "=>".
		for i > lo && strings.IndexByte(" \t\"':=\\>(`*", s[i-1]) >= 0 {
			i--
		}
		j := i
		for j > lo && (isWordByte(s[j-1]) || s[j-1] == '-' || s[j-1] == '.') {
			j--
		}
		if j == i {
			break
		}
		out = append(out, strings.ToLower(s[j:i]))
		i = j
	}
	return out
}

// credentialPhrase: the words before a value name a credential and lead
// to it: "token", "the API key is", "password was", "credential: ".
func credentialPhrase(words []string) bool {
	for _, w := range words {
		last := lastWord(w)
		if identifierWord(last) {
			return false
		}
		if credentialKey(w, last) {
			return true
		}
		if !linkWord(w) {
			return false
		}
	}
	return false
}

func linkWord(w string) bool {
	switch w {
	case "is", "was", "are", "be", "as", "to", "of", "set", "now", "the", "our", "your", "my", "new", "use", "using":
		return true
	}
	return false
}

// usingBefore: the value is what something is done with ("log in to
// cloudflare using ...").
func usingBefore(words []string) bool {
	return len(words) > 0 && (words[0] == "using" || words[0] == "with")
}

// prefixedToken: a vendor-style prefix and a random body. The prefix is
// one to three segments of at most 10 letters and digits, each in one
// case, the first starting with a letter, each ended by '_', '-' or '.'.
// One segment is also how services name their objects (Stripe's pi_,
// Anthropic's msg_, OpenAI's call_, 24 bytes of body) and how code names
// a package's identifiers (ssa.OpAMD64VPMOVMToVec8x16): such a token
// needs a body of 32 bytes at least; a prefix of two segments or more
// (Doppler's dp.st., sb_secret_, tskey-auth-) needs 20.
func prefixedToken(v string) bool {
	if hostLed(v) || len(v) >= 36 && isUUID(v[len(v)-36:]) {
		return false
	}
	i, segs := 0, 0
	var sep byte
	for segs < 3 {
		j := i
		lower, upper := false, false
		for j < len(v) && j-i <= 10 && isAlnum(v[j]) {
			lower = lower || v[j] >= 'a' && v[j] <= 'z'
			upper = upper || v[j] >= 'A' && v[j] <= 'Z'
			j++
		}
		if j == i || j >= len(v) || j-i > 10 || lower && upper || v[j] != '_' && v[j] != '-' && v[j] != '.' {
			break
		}
		if segs == 0 && (j-i < 2 || !isLetter(v[i]) || identifierPrefix(strings.ToLower(v[i:j])) || version(v[i:j])) {
			return false
		}
		segs, sep, i = segs+1, v[j], j+1
	}
	if segs == 0 {
		return false
	}
	need, hexNeed := 20, 20
	if segs == 1 {
		// Hex after one word is also how ids and digests are named
		// (batch_<md5>, trace-<32 hex>, covmeta.<md5>): 40 digits, or
		// 32 after an abbreviation of 2 or 3 bytes and '_' or '-', as
		// vendors' prefixes are. A body after '_' or '-' names an
		// object (Stripe's pi_<24>) unless it is 32 bytes or more; after
		// '.' 20 will do (Vault's hvs.<24>), since a name in code
		// (pkg.Identifier) reads as words and is left by randomBody.
		need, hexNeed = 32, 40
		if sep == '.' {
			need = 20
		} else if i <= 4 {
			hexNeed = 32
		}
	}
	return randomBody(v[i:], need, hexNeed)
}

// version: v and digits (v0.0.0-20170915032832-14c0d48ead0c, a Go
// module's pseudo-version).
func version(seg string) bool {
	if seg[0] != 'v' && seg[0] != 'V' {
		return false
	}
	for i := 1; i < len(seg); i++ {
		if !isDigit(seg[i]) {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// identifierPrefix: a first segment that names a digest, a build
// artefact or a record, whatever random bytes follow it.
func identifierPrefix(p string) bool {
	switch p {
	case "sha", "sha1", "sha224", "sha256", "sha384", "sha512", "md5", "blake2b", "blake3", "xxh64", "crc32", "git",
		"commit", "rev", "build", "run", "job", "trace", "span", "req", "request", "cache", "layer", "image", "chunk",
		"main", "app", "index", "vendor", "bundle", "node", "pod", "id", "uuid", "tx", "txn", "block", "hash":
		return true
	}
	return false
}

// charStats are what the randomness tests look at.
type charStats struct {
	n, lower, upper, digit, other, vowels, hexLetters int
	slash                                             bool
}

func statsOf(v string) (st charStats) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z':
			st.lower++
		case c >= 'A' && c <= 'Z':
			st.upper++
		case c >= '0' && c <= '9':
			st.digit++
		default:
			st.other++
			st.slash = st.slash || c == '/'
			continue
		}
		st.n++
		switch c | 0x20 {
		case 'a', 'e', 'i', 'o', 'u':
			st.vowels++
		}
		if c|0x20 >= 'a' && c|0x20 <= 'f' {
			st.hexLetters++
		}
	}
	return
}

// hexOnly: letters and digits all hexadecimal, in one case.
func (st charStats) hexOnly() bool {
	return st.hexLetters == st.lower+st.upper && (st.lower == 0 || st.upper == 0)
}

// wordy: letters with as many vowels as words have (random letters hold
// about one in five) and hardly a digit: names are made of words (a Java
// class's dotted name), random tokens of letters and digits.
func (st charStats) wordy() bool {
	letters := float64(st.lower + st.upper)
	switch {
	case st.digit == 0:
		return float64(st.vowels) > 0.3*letters
	case st.digit*8 < st.n:
		return float64(st.vowels) > 0.35*letters
	}
	return false
}

// randomBody: at least need letters and digits that read as random (hex:
// hexNeed, both letters and digits), enough entropy, digits or both
// cases, and not the vowels of words. A file name (a hash in a bundle's
// name) or a dotted name (a Java class, a host) is not a body.
func randomBody(b string, need, hexNeed int) bool {
	if fileName(b) || strings.Count(b, ".") > 1 || dottedName(b) || isUUID(b) || dated(b) || constName(b) {
		return false
	}
	st := statsOf(b)
	if st.n < need || st.other*4 > st.n {
		return false
	}
	if st.hexOnly() {
		return st.n >= hexNeed && st.digit > 0 && st.hexLetters > 0 && entropy(b) >= 3.0
	}
	return (st.digit > 0 || st.lower > 1 && st.upper > 1) && !st.wordy() && entropy(b) >= 3.5 && !wordlike(b) && !isUUID(b) && !sequence(b)
}

// sequence: a third of v's bytes follow their predecessor in the
// alphabet (ABCDEFGHIJ..., 0123456789): a test's alphabet, not a key.
func sequence(v string) bool {
	n := 0
	for i := 1; i < len(v); i++ {
		if v[i] == v[i-1]+1 {
			n++
		}
	}
	return n*3 >= len(v)
}

// fileName: ends with an extension (a hash in a bundle's name, a path).
func fileName(v string) bool {
	k := strings.LastIndexByte(v, '.')
	return k >= 0 && len(v)-k-1 <= 5 && allLower(v[k+1:])
}

func allLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return len(s) > 0
}

// randomish: a value after a credential word: min bytes or more, not a
// UUID or a path, and random (hex of 16 or more, or entropy with digits
// or both cases).
func randomish(v string, min int) bool {
	if len(v) < min || isUUID(v) || v[0] == '/' || v[0] == '.' || v[0] == '~' || strings.Contains(v, "//") || fileName(v) || dottedName(v) || publicKeyDER(v) {
		return false
	}
	st := statsOf(v)
	if st.n < min*3/4 || st.other*4 > st.n {
		return false
	}
	if st.hexOnly() {
		// A number (1.5E+10) is not hex: random hex is a third letters.
		return st.digit > 0 && st.hexLetters*8 >= st.n && entropy(v) >= 2.8
	}
	return (st.digit > 0 || st.lower > 1 && st.upper > 1) && !st.wordy() && entropy(v) >= 3.3 && !wordlike(v) && !sequence(v)
}

// strongRandom: a bare token that is random beyond doubt: 32 bytes or
// more, both cases and digits, no slash, high entropy.
func strongRandom(v string) bool {
	if len(v) < 32 {
		return false
	}
	st := statsOf(v)
	return !st.slash && st.other*8 <= st.n && st.lower > 2 && st.upper > 2 && st.digit > 1 && !st.wordy() && entropy(v) >= 4.2 && !wordlike(v)
}

// digest: hex of a SHA-1, SHA-256 or SHA-512 digest's length. Under a
// bare key (a cache's, an object's) it is the digest itself; under a
// bare token it is not (Linode's tokens are 64 hex digits).
func digest(v string) bool {
	return (len(v) == 40 || len(v) == 64 || len(v) == 128) && isHex(v)
}

// isUUID: 8-4-4-4-12 hex digits.
func isUUID(v string) bool {
	if len(v) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if v[i] != '-' {
				return false
			}
		} else if !isHex(v[i : i+1]) {
			return false
		}
	}
	return true
}

// dottedName: a name in code, with dots (in.sysStats.gcCyclesDone,
// r.curfn.Nname.Type, dt.Iundefsym+dt.Nundefsym): every part between
// the dots and operators starts with a letter and is short. Random
// bodies hold no dots.
func dottedName(v string) bool {
	if strings.IndexByte(v, '.') < 0 {
		return false
	}
	for i := 0; i < len(v); {
		j := i
		for j < len(v) && (isAlnum(v[j]) || v[j] == '_') {
			j++
		}
		if j == i || j-i > 24 || !isLetter(v[i]) && v[i] != '_' {
			return false
		}
		i = j + 1
	}
	return true
}

// hostLed: v starts with a host name and goes on with '/' or '+'
// (golang.org/x/crypto/..., sum.golang.org+033de0ae+<public key>): a
// path or a public verifier key, not a token.
func hostLed(v string) bool {
	k := strings.IndexAny(v, "/+")
	if k <= 0 {
		return false
	}
	h := v[:k]
	dot := strings.LastIndexByte(h, '.')
	if dot <= 0 || !allLower(h[dot+1:]) {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !isLowerByte(c) && !isDigit(c) && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// dated: a body that starts with a date and time (20211021072330-...,
// a revision's or a pseudo-version's), not a random one.
func dated(b string) bool {
	n := 0
	for n < len(b) && isDigit(b[n]) {
		n++
	}
	return n >= 8 && (strings.HasPrefix(b, "19") || strings.HasPrefix(b, "20"))
}

// publicKeyDER: the base64 of a public key's DER (SubjectPublicKeyInfo
// of EC P-256/P-384, RSA, Ed25519): under a key's name, but public.
func publicKeyDER(v string) bool {
	for _, p := range []string{"MFkwEwYHKoZIzj0CAQ", "MHYwEAYHKoZIzj0CAQ", "MIGbMBAGByqGSM49AgE", "MIIBIjANBgkqhkiG9w0BAQEFAAOC", "MIICIjANBgkqhkiG9w0BAQEFAAOC", "MCowBQYDK2VwAyEA", "MIGfMA0GCSqGSIb3DQEBAQUAA4GN"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

// constName: an upper-case constant's name, its words joined by '_'
// (RSA_WITH_AES_128_GCM_SHA256): two '_' or more, no part over 12 bytes.
func constName(b string) bool {
	parts, n := 1, 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '_':
			parts, n = parts+1, 0
		case isUpperByte(c) || isDigit(c):
			if n++; n > 12 {
				return false
			}
		default:
			return false
		}
	}
	return parts >= 3
}

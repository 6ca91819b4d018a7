package redact

import "strings"

// gitleaks' generic-api-key rule takes a value after any of its keywords
// (key, token, auth, secret, access, api...) found up to 20 bytes before
// the assignment: in "auth-svc request_id=req_7f3a9b2c41" the keyword is
// the service's name and the value a request id; in
// "continuation-token=..." a paging cursor. Such values are the ones an
// agent searches for later, and a redacted id is an id it cannot find.
// ctxhook keeps gitleaks' pattern as generated (make rules) and judges
// each of the rule's matches again here (genericKeyed): the value's own
// key, the name right before it, must name a credential.
//
//   - The key is read back from the value: past the quotes and blanks
//     before it, the assignment (=, :, =>, ...), then the name. In prose
//     ("API key: ..."), a one-word key takes the word before it as its
//     qualifier.
//   - Its last word, after modifiers (value, base, b64, prod...), must be
//     a credential noun: key, token, secret, password, passwd, pwd,
//     passphrase, credential(s), creds, auth, or one glued to it
//     (apikey, accessToken, AWS_SECRET_ACCESS_KEY, SECRET_KEY_BASE).
//     An identifier's name (request_id, trace_id, build id, commit, sha,
//     uuid, etag...) is not.
//   - A qualifier that makes it bookkeeping is not a credential either:
//     next_page_token, page_token, continuation-token, cursor, sync
//     token, cache key, idempotency key, sort key, public key...
//   - A value that is code is not a credential: a dotted name or an
//     upper-case constant made of parts that read as words
//     (exports.STRICT_TOKEN, ed25519.PrivateKey), or the key's own name
//     again (a placeholder).
//   - A bare key, token or auth (no qualifier, or one that does not
//     make it a credential) takes only a value that reads as random by
//     the shape stage's test (randomish) and is not an identifier's
//     shape: a UUID, a path, a file name, a ticket key, an id under 16
//     bytes, and (under a key, not a token) a SHA-1, SHA-256 or SHA-512
//     hex digest. Under a named
//     credential (api_key, secret, password, client_secret...) gitleaks'
//     own decision stands (entropy above 3.5 bits).

// keyedBy holds the post-filters of generated rules whose matches are
// judged again by the key or name before the secret.
var keyedBy = map[string]func(w string, a, z int) bool{
	"generic-api-key":          genericKeyed,
	"sourcegraph-access-token": sourcegraphKeyed,
}

// sourcegraphKeyed: gitleaks' Sourcegraph rule also takes a bare run of
// 40 hex digits (a SHA-1, a commit) anywhere in the text around "sgp_"
// or "sourcegraph", even inside another token. A bare run is taken only
// when the name of Sourcegraph stands within 64 bytes before it.
func sourcegraphKeyed(w string, a, z int) bool {
	if hasLowerPrefix(w[a:z], "sgp_") {
		return true
	}
	return strings.Contains(strings.ToLower(w[max(0, a-64):a]), "sourcegraph")
}

// genericKeyed reports whether the generic rule's secret w[a:z] sits
// under a credential's key (see above).
func genericKeyed(w string, a, z int) bool {
	key, prev := keyBefore(w, a)
	// gitleaks' value may hold a name=value of its own (auth: key=...):
	// the inner name is the value's key.
	if k := strings.IndexByte(w[a:z], '='); k > 0 && k < z-a-1 && isKeyName(w[a:a+k]) && isLetter(w[a]) {
		key, prev, a = w[a:a+k], "", a+k+1
	}
	return credentialValue(key, prev, w[a:z])
}

// credentialValue: v, under key (prev the word before a one-word key),
// is a credential by the rules above.
func credentialValue(key, prev, v string) bool {
	if key == "" || codeValue(v, key) {
		return false
	}
	words := keyWords(key)
	for _, q := range append(words, prev) {
		if bookkeeping(q) {
			return false
		}
	}
	k := len(words) - 1
	for k > 0 && modifierWord(words[k]) {
		k--
	}
	noun := words[k]
	if !credentialNoun(noun) {
		return false
	}
	weak := (noun == "key" || noun == "keys" || noun == "token" || noun == "auth") && k == 0 && !strongQualifier(prev)
	return !weak || identifierFree(v, noun)
}

// keyBefore reads the key of the value starting at w[a]: past the bytes
// gitleaks lets stand between an assignment and its value (quotes,
// blanks, backslashes, '='), the assignment, the quotes and blanks
// before it, then a name of word bytes, '.' and '-' (64 at most). With a
// one-word name, prev is the word before it on the line (a qualifier in
// prose: "API key: ...", "cache key = ...").
func keyBefore(w string, a int) (key, prev string) {
	i := a
	for k := 0; k < 20 && i > 0 && strings.IndexByte("\\`'\" \t\n\r\f=", w[i-1]) >= 0; k++ {
		i--
	}
	for k := 0; k < 3 && i > 0 && strings.IndexByte("=>:|?,", w[i-1]) >= 0; k++ {
		i--
	}
	for k := 0; k < 12 && i > 0 && strings.IndexByte("\\ \t\n\r\f'\"", w[i-1]) >= 0; k++ {
		i--
	}
	j := keyStart(w, i)
	key = w[j:i]
	if key == "" || strings.IndexAny(key, "_.-") >= 0 || hasCamel(key) {
		return key, ""
	}
	if j > 0 && (w[j-1] == ' ' || w[j-1] == '\t') {
		p := keyStart(w, j-1)
		prev = strings.ToLower(w[p : j-1])
	}
	return key, prev
}

// keyStart is where the name ending at w[i] starts (at most 64 bytes).
func keyStart(w string, i int) int {
	j := i
	for j > 0 && i-j < 64 && (isWordByte(w[j-1]) || w[j-1] == '.' || w[j-1] == '-') {
		j--
	}
	return j
}

// hasCamel: a lower-case letter followed by a capital (apiKey).
func hasCamel(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' && s[i-1] >= 'a' && s[i-1] <= 'z' {
			return true
		}
	}
	return false
}

// keyWords splits a name into its lower-case words: at '_', '-', '.',
// and camel case (apiKey, APIKey, X-Api-Key, AWS_SECRET_ACCESS_KEY).
func keyWords(key string) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToLower(key[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !isAlnum(c) {
			flush(i)
			continue
		}
		if start >= 0 && c >= 'A' && c <= 'Z' {
			p := key[i-1]
			// a capital after a lower-case letter or a digit, or the
			// last capital of a run before a lower-case letter (APIKey).
			if p >= 'a' && p <= 'z' || p >= '0' && p <= '9' ||
				p >= 'A' && p <= 'Z' && i+1 < len(key) && key[i+1] >= 'a' && key[i+1] <= 'z' {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(key))
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

// credentialNoun: a word that names a credential, alone or glued to its
// qualifier (apikey, accesstoken, secretkey, dbpassword).
func credentialNoun(w string) bool {
	switch w {
	case "key", "keys", "auth", "pwd", "pass", "creds", "apikey", "accesskey", "secretkey", "privatekey", "authkey",
		"signingkey", "masterkey", "clientkey", "appkey", "licensekey", "encryptionkey":
		return true
	}
	for _, root := range []string{"token", "secret", "password", "passwd", "passphrase", "credential", "credentials"} {
		if strings.HasSuffix(w, root) {
			return true
		}
	}
	return false
}

// modifierWord: a word after a credential's noun that does not change
// what the value is (TOKEN_VALUE, SECRET_KEY_BASE, API_KEY_PROD).
func modifierWord(w string) bool {
	switch w {
	case "value", "val", "str", "string", "b64", "base64", "hex", "raw", "data", "env", "base", "enc", "encoded", "plain",
		"prod", "production", "staging", "stage", "dev", "test", "live", "sandbox", "old", "new", "current", "v1", "v2", "v3":
		return true
	}
	return len(w) <= 2 && w != "" && w[0] >= '0' && w[0] <= '9'
}

// bookkeeping: a qualifier under which a key or token pages, caches,
// orders or dedups, or is public: not a credential.
func bookkeeping(w string) bool {
	switch w {
	case "page", "continuation", "next", "cursor", "pagination", "sync", "resume", "cache", "idempotency", "dedup",
		"sort", "partition", "public", "pub", "row", "object", "lookup", "routing", "shard", "foreign", "primary",
		"nextpage", "pagetoken", "nextpagetoken", "continuationtoken", "synctoken", "cachekey", "idempotencykey",
		"publickey", "sortkey", "partitionkey", "primarykey", "foreignkey", "objectkey", "rowkey":
		return true
	}
	return false
}

// strongQualifier: a word before a bare "key" or "token" in prose that
// makes it a credential's name (API key, access token, bot token).
func strongQualifier(w string) bool {
	switch w {
	case "api", "access", "secret", "private", "auth", "client", "signing", "master", "bot", "personal", "deploy",
		"service", "app", "oauth", "bearer", "session", "refresh", "admin", "license", "encryption", "github", "gitlab":
		return true
	}
	return false
}

// identifierFree: a value under a bare key, token or auth (noun) that
// reads as random and has none of an identifier's shapes. A digest's
// length of hex is one under a bare key, not under a token (Linode's
// tokens are 64 hex digits).
func identifierFree(v, noun string) bool {
	if !randomish(v, 16) || ticketKey(v) {
		return false
	}
	return noun == "token" || !digest(v)
}

// codeValue: the value is code, not a credential: a dotted name or a
// constant made of parts none of which reads as random
// (exports.SOCKS5_CUSTOM_AUTH_END, ed25519.PrivateKey,
// win32api.RegEnumKey), or the key's own name again, as placeholders
// are written ("encryptionKey": "encryptionKey1024").
func codeValue(v, key string) bool {
	if len(key) >= 4 && strings.Contains(strings.ToLower(v), strings.ToLower(key)) {
		return true
	}
	if !dottedName(v) && !constName(v) {
		return false
	}
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '_' }) {
		if randomish(part, 8) {
			return false
		}
	}
	return true
}

// ticketKey: capitals, a dash and digits (CVX-5909).
func ticketKey(v string) bool {
	k := strings.IndexByte(v, '-')
	if k < 1 || k == len(v)-1 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; i < k && (c < 'A' || c > 'Z') || i > k && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

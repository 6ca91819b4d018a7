package redact

import "strings"

// A value assigned to a credential's name is the name's to judge, not
// its token runs': a secret drawn from symbols as well as letters and
// digits (Django's SECRET_KEY draws from !@#$%^&*(-_=+)) falls apart at
// every symbol into pieces shorter than the runs the walk starts from,
// and a login written user:password is short. So every assignment
// operator is an entry point too: when the name before it says key,
// token, secret, password or credential (credentialName) or auth, the
// whole value goes, whatever bytes it holds, unless it is a reference or
// a placeholder (${TOKEN}, <your-api-key>, {{ vault_key }}, %(pw)s,
// os.Getenv(...), var.db_password, changeme, ********), code or an
// identifier, or does not read as drawn at random.

// namedValues adds the edits of the values assigned to credentials'
// names in s.
func namedValues(s string, f *found) {
	for i := 0; i < len(s); {
		k := strings.IndexAny(s[i:], "=:")
		if k < 0 {
			return
		}
		op := i + k
		i = op + 1
		if e, ok := namedValue(s, op); ok {
			f.add(e)
			i = e.end
		}
	}
}

// namedValue judges the value after the assignment operator at s[op].
func namedValue(s string, op int) (edit, bool) {
	v0 := op + 1
	for v0 < len(s) && (s[v0] == '=' || s[v0] == '>') && v0-op < 3 {
		v0++
	}
	for k := 0; k < 8 && v0 < len(s) && (s[v0] == ' ' || s[v0] == '\t'); k++ {
		v0++
	}
	quote := ""
	if v0 < len(s) && (s[v0] == '"' || s[v0] == '\'') {
		quote = s[v0 : v0+1]
	} else if v0+1 < len(s) && s[v0] == '\\' && s[v0+1] == '"' {
		quote = `\"`
	}
	v0 += len(quote)
	if v0 >= len(s) || s[v0] == ' ' || s[v0] == '\n' {
		return edit{}, false
	}
	key, ok := opKey(s, v0)
	if !ok || !mayNameCredential(key) || !(credentialName(key) || authName(key)) || bookkeeping(strings.ToLower(wordBefore(s, v0, key))) {
		return edit{}, false
	}
	v1, ok := valueEnd(s, v0, quote)
	if !ok {
		return edit{}, false
	}
	v := s[v0:v1]
	// A marker inside the value: an earlier stage took part of it (up to
	// a symbol its pattern stops at), and the rest is the same secret's.
	if m := strings.Index(v, "[REDACTED"); m >= 0 {
		if rest := strings.Trim(markerFree(v), " "); len(rest) >= 4 && !placeholder(rest) {
			return edit{v0, v1, "[REDACTED:" + kindCredential + "]"}, true
		}
		return edit{}, false
	}
	if !symbolSecret(v, key) {
		return edit{}, false
	}
	return edit{v0, v1, "[REDACTED:" + kindCredential + "]"}, true
}

// authName: a name whose last word is auth (BASIC_AUTH, "auth"), which
// takes only a user:password value.
func authName(key string) bool {
	if !hasFoldSuffix(key, "auth") && !hasFoldSuffix(key, "userinfo") {
		return false // most names, without a split
	}
	ws := keyWords(key)
	return ws[len(ws)-1] == "auth" || ws[len(ws)-1] == "basicauth" || ws[len(ws)-1] == "userinfo"
}

// valueEnd is where the value starting at s[v0] ends: its closing
// quote on the line, or, unquoted, the first blank, line end or a
// query's next parameter (&name=), with what ends a sentence or a list left out. An unquoted value
// that meets a quote is a call's argument (os.Getenv("KEY")): refused.
func valueEnd(s string, v0 int, quote string) (int, bool) {
	lim := min(len(s), v0+maxValue)
	if quote != "" {
		for j := v0; j < lim; j++ {
			switch {
			case strings.HasPrefix(s[j:], quote) && (quote != `\"` || s[j-1] != '\\'):
				return j, true
			case s[j] == '\n' || s[j] == '\r' || quote != `\"` && s[j] == '\\' && j+1 < len(s) && s[j+1] == 'n':
				return 0, false
			}
		}
		return 0, false
	}
	j := v0
	for j < lim && s[j] > ' ' && s[j] != '"' && s[j] != '\'' && s[j] != '`' && s[j] != '\\' && !queryParam(s, j) && s[j] < 0x7f {
		j++
	}
	if j < len(s) && (s[j] == '"' || s[j] == '\'' || s[j] == '`') {
		return 0, false
	}
	for j > v0 && strings.IndexByte(".,;)}]", s[j-1]) >= 0 {
		j--
	}
	return j, true
}

// symbolSecret: v, assigned to key, reads as a secret drawn at random,
// symbols and all, or as user:password under a credential's or auth's
// name. What its bytes' counts settle is asked first: most values
// under such names fail there.
func symbolSecret(v, key string) bool {
	if len(v) < 8 || v[0] == '/' || v[0] == '~' || v[0] == '.' {
		return false
	}
	login := userPass(v)
	if !login {
		if len(v) < 16 || authName(key) && !credentialName(key) {
			return false
		}
		// A random draw over letters, digits and symbols: each of its
		// classes there, and close to one byte in two distinct.
		st := statsOf(v)
		sym := len(v) - st.lower - st.upper - st.digit
		if st.digit == 0 || st.lower+st.upper == 0 || sym == 0 || !symbolsVaried(v) || entropy(v) < 4.0 || slugID(v) || wordyPieces(v) {
			return false
		}
	}
	return !(placeholder(v) || codeIdent(v) || codeValue(v, key) || isUUID(v) || strings.Contains(v, "://") ||
		hostLed(v) || fileName(v) || dated(v) || ticketKey(v) || publicKeyDER(v) || dottedWords(v))
}

// symbolsVaried: at least two distinct symbols (not only a separator
// between words and numbers: 2024-01-01_build-17).
func symbolsVaried(v string) bool {
	var seen byte
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isAlnum(c) {
			if seen != 0 && c != seen {
				return true
			}
			seen = c
		}
	}
	return false
}

// wordyPieces: half or more of v's letters lie in pieces that read as
// words (your-api-key-here, my_secret_value_2024).
func wordyPieces(v string) bool {
	letters, wordy := 0, 0
	for i := 0; i < len(v); {
		j := i
		for j < len(v) && isAlnum(v[j]) {
			j++
		}
		if j > i {
			letters += j - i
			if j-i >= 3 && wordlike(v[i:j]) {
				wordy += j - i
			}
		} else {
			j++
		}
		i = j
	}
	return 2*wordy >= letters
}

// userPass: a login in clear, user:password: a user of name bytes, then
// a password of 6 to 64 printable bytes with no blank or second colon,
// that is neither a port, a word nor a reference.
func userPass(v string) bool {
	k := strings.IndexByte(v, ':')
	if k < 1 || k > 64 || len(v)-k-1 < 6 || len(v)-k-1 > 64 {
		return false
	}
	u, p := v[:k], v[k+1:]
	for i := 0; i < len(u); i++ {
		if !isAlnum(u[i]) && strings.IndexByte("._@+-", u[i]) < 0 {
			return false
		}
	}
	if strings.IndexByte(p, ':') >= 0 || strings.HasPrefix(p, "//") || placeholder(p) || isDigits(p) {
		return false
	}
	lu := strings.ToLower(u)
	if bookkeeping(lu) || identifierWord(lu) || paging(lu) {
		return false
	}
	st := statsOf(p)
	return st.digit+st.other > 0 && st.lower+st.upper > 0 && !(wordlike(p) && st.other == 0) && !wordyPieces(p)
}

func isDigits(v string) bool {
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return false
		}
	}
	return v != ""
}

// placeholder: a value that stands for a secret rather than holds one:
// a reference to where it lives (${TOKEN}, $TOKEN, {{ vault_key }},
// %(pw)s, <your-api-key>, [secret]), one byte repeated (********,
// xxxxxxxx), or wording that says so (changeme, your-api-key-here,
// replace_me).
func placeholder(v string) bool {
	if v == "" {
		return true
	}
	switch {
	case strings.HasPrefix(v, "${") || strings.HasPrefix(v, "$(") || strings.HasPrefix(v, "{{") || strings.HasPrefix(v, "%(") ||
		strings.HasPrefix(v, "#{") || strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">") ||
		strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]"):
		return true
	case v[0] == '$' && isKeyName(v[1:]):
		return true
	}
	if len(v) >= 3 && strings.IndexByte("*xX#.-_", v[0]) >= 0 && strings.Count(v, v[:1]) == len(v) {
		return true // a mask: ********, xxxxxxxx
	}
	for _, w := range placeholderWords {
		if containsFold(v, w) {
			return true
		}
	}
	return false
}

// placeholderWords, in lower case, say a value stands for a secret.
var placeholderWords = []string{"your", "changeme", "change_me", "change-me", "replace", "placeholder", "example", "dummy", "<", "todo"}

// containsFold: s holds the lower-case sub in any case, read without a
// copy.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if lowerTab[s[i]] == sub[0] && hasLowerPrefix(s[i:], sub) {
			return true
		}
	}
	return false
}

// wordsOnly: letters in pieces that read as words, no digit (include,
// my-secret-name, your_api_key): a name or a setting, not a draw.
func wordsOnly(v string) bool {
	st := statsOf(v)
	return st.digit == 0 && st.lower+st.upper > 0 && wordyPieces(v)
}

// namedInProse judges the word a credential's name leads to in prose
// ("the Django secret key is k3#x!2m@...", "credentials admin:Qz7!kR2m"):
// from the marked word at s[i] (secret, password, passphrase,
// credential, token), over link words, other credential words and
// products' names, blanks, quotes, ':' and '=' on the line, to the next
// word of non-blank bytes, which goes when it reads as a secret drawn
// at random (symbols and all) or as user:password.
func namedInProse(s string, i int) (edit, bool) {
	w0 := i
	for w0 > 0 && i-w0 < 32 && (isAlnum(s[w0-1]) || s[w0-1] == '_' || s[w0-1] == '-') {
		w0--
	}
	j := i
	for j < len(s) && (isAlnum(s[j]) || s[j] == '_' || s[j] == '-' && j+1 < len(s) && isLetter(s[j+1])) && j-i < 32 {
		j++
	}
	// The whole word must name a credential (not token-broker-7f8d9,
	// next_page_token, token_trace_id), as a word of prose or a name
	// standing alone, not the value of a name=... before it.
	if j < len(s) && !isProseGap(s[j]) || w0 > 0 && (s[w0-1] == '=' || s[w0-1] == '.' || s[w0-1] == '/') || !credentialName(s[w0:j]) {
		return edit{}, false
	}
	j0 := j
	other := 0
	for w := 0; w < 6; w++ {
		j = skipGap(s, j)
		k := j
		for k < len(s) && isLetter(s[k]) && k-j < 24 {
			k++
		}
		if k == j || k < len(s) && !isProseGap(s[k]) || k+1 < len(s) && (s[k] == ':' || s[k] == '=') && s[k+1] > ' ' {
			break // the value itself (user:password)
		}
		lw := strings.ToLower(s[j:k])
		if identifierWord(lw) || bookkeeping(lw) || k < len(s) && s[k] == '(' {
			return edit{}, false
		}
		if !(linkWord(lw) || chainWord(lw) || credentialWord(lw, lw) || capitalised(s[j:k])) {
			if other++; other > 1 {
				return edit{}, false // "the registry", not "password hashing uses ..."
			}
		}
		j = k
	}
	if j >= len(s) || s[j] == '\n' {
		return edit{}, false
	}
	v0 := j
	if s[v0] == '-' || s[v0] == '/' {
		return edit{}, false
	}
	v1 := v0
	for v1 < len(s) && v1-v0 < maxValue && s[v1] > ' ' && s[v1] < 0x7f && s[v1] != '"' && s[v1] != '`' && s[v1] != '\'' {
		v1++
	}
	for v1 > v0 && strings.IndexByte(".,;)", s[v1-1]) >= 0 && (v1 == len(s) || s[v1] <= ' ' || s[v1] == '"' || s[v1] == '`' || s[v1] == '\'') {
		v1--
	}
	v := s[v0:v1]
	if k := strings.IndexByte(v, '='); k > 0 && isKeyName(v[:k]) {
		return edit{}, false // name=value: its name judges it
	}
	// Markup's and lists' brackets and separators (page](data:...)) are
	// no secret's bytes, and a secret in prose is not a page long.
	password := strings.Contains(strings.ToLower(s[w0:j0]), "pass")
	if v1-v0 < 6 || v1-v0 > 256 || strings.ContainsAny(v, "[]{}<>;,") ||
		!(symbolSecret(v, "secret") || randomValue(v) && secretValue(v, "secret") || password && shortPassword(v)) {
		return edit{}, false
	}
	return edit{v0, v1, "[REDACTED:" + kindCredential + "]"}, true
}

// chainWord: a word that may stand between a credential's name and its
// value in prose.
func chainWord(w string) bool {
	switch w {
	case "for", "here", "a", "an", "this", "that", "with", "in", "from", "called", "named", "key", "base", "value", "string":
		return true
	}
	return false
}

// skipGap skips what stands between words of a sentence on one line:
// blanks, quotes, backticks, ':', '=' and an opening parenthesis.
func skipGap(s string, j int) int {
	for k := 0; k < 8 && j < len(s) && isProseGap(s[j]); k++ {
		j++
	}
	return j
}

func isProseGap(c byte) bool {
	return c == ' ' || c == '\t' || c == '"' || c == '\'' || c == '`' || c == ':' || c == '=' || c == '('
}

// queryParam: s[j] is the '&' that opens a query's next parameter
// (&continuation-token=...), not a symbol of a secret.
func queryParam(s string, j int) bool {
	if s[j] != '&' {
		return false
	}
	k := j + 1
	for k < len(s) && k-j < 65 && (isWordByte(s[k]) || s[k] == '-' || s[k] == '.') {
		k++
	}
	return k > j+1 && k < len(s) && s[k] == '=' && (plainWord(s[j+1:k]) || wordlike(s[j+1:k]))
}

// markerFree is v without the markers earlier stages left in it.
func markerFree(v string) string {
	var b strings.Builder
	for {
		m := strings.Index(v, "[REDACTED")
		if m < 0 {
			b.WriteString(v)
			return b.String()
		}
		b.WriteString(v[:m])
		e := strings.IndexByte(v[m:], ']')
		if e < 0 {
			return b.String()
		}
		v = v[m+e+1:]
	}
}

// dottedWords: letters on both sides of a dot (localhost.localdev/sumdb,
// xnu-8019.41.5~1/RELEASE): a host's, a file's or a version's name,
// which no generator of secrets draws (their alphabets hold no dot).
func dottedWords(v string) bool {
	for i := 1; i+1 < len(v); i++ {
		if v[i] == '.' && isAlnum(v[i-1]) && isAlnum(v[i+1]) {
			return true
		}
	}
	return false
}

// shortPassword: a word after "password" in prose that reads as one:
// 6 to 64 bytes with letters and digits, no word, path or placeholder.
func shortPassword(v string) bool {
	if len(v) < 6 || len(v) > 64 || placeholder(v) || strings.ContainsAny(v, "/.") {
		return false
	}
	st := statsOf(v)
	return st.digit > 0 && st.lower+st.upper > 0 && st.digit < st.n && !wordyPieces(v)
}

// credentialStems are what every name credentialName or authName takes
// holds, in lower case: most names an operator follows hold none, and
// are turned down without splitting them into words.
var credentialStems = []string{"key", "token", "secret", "pass", "pwd", "cred", "api", "licen", "dsn", "auth", "cert", "private", "pat", "sig", "userinfo"}

// mayNameCredential: key holds one of credentialStems, in any case.
func mayNameCredential(key string) bool {
	for i := 0; i < len(key); i++ {
		for _, st := range credentialStems {
			if lowerTab[key[i]] == st[0] && hasLowerPrefix(key[i:], st) {
				return true
			}
		}
	}
	return false
}

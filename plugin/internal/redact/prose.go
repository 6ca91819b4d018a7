package redact

import (
	"bytes"
	"encoding/base64"
	"strings"
)

// The window of a sentence. windowed reads the few words right next to a
// random run, the way labels and short phrases name a value ("the
// Deepgram key is ..."). Prose also names a value from further off, on
// either side, over punctuation: "I found <value> in the logs; it looks
// like the Plivo auth token", "Use `<value>` as the Pusher app secret",
// "The Mailjet secret key (<value>) leaked". sentenceWindow reads up to
// ten words each way within the sentence (a line break or a full stop
// ends it) and takes the run when a credential word is nearer to it than
// any identifier's word (id, commit, hash, trace...): "request id
// <value> for the api key rotation" stays, as does "commit <value> fixed
// the token refresh".
//
// A value in prose may hold bytes a token run does not (Django's keys
// draw from !@#$%^&*(-_=+)): the run is widened over them to the blanks
// or quotes around it, so no piece of it is left.

// sentenceWords bounds the words read on each side.
const sentenceWords = 10

// sentenceBytes bounds how far the window reaches on each side.
const sentenceBytes = 160

// sentenceWindow judges the random run s[v0:v1] by the words of its
// sentence.
func sentenceWindow(s string, v0, v1 int) (edit, bool) {
	w0, w1 := widenProse(s, v0, v1)
	// A value after '=' is assigned: its name judges it (assigned), not
	// the words of a comment beside it.
	if i := blanksBack(s, w0); i > 0 && (s[i-1] == '"' || s[i-1] == '\'' || s[i-1] == '`') {
		if i = blanksBack(s, i-1); i > 0 && (s[i-1] == '=' || s[i-1] == '>') {
			return edit{}, false
		}
	} else if i > 0 && (s[i-1] == '=' || s[i-1] == '>') {
		return edit{}, false
	}
	var bufB, bufA [sentenceWords]word
	before := sentenceWalk(bufB[:0], s, w0, -1)
	after := sentenceWalk(bufA[:0], s, w1, 1)
	cb, ib := credentialAt(before, true), identifierAt(before)
	if len(after) > 0 && !leadsOn(after[0].w) {
		after = after[:0]
	}
	ca, ia := credentialAt(after, false), identifierAt(after)
	c := min(cb, ca)
	if c == noWord && min(ib, ia) == noWord && productObject(s, s[v0:v1], before) {
		return edit{w0, w1, "[REDACTED:" + kindCredential + "]"}, true
	}
	if c == noWord || min(ib, ia) <= c {
		return edit{}, false
	}
	// A certificate is public unless its value cannot be one.
	if cw := wordAt(before, after, cb, ca); strings.EqualFold(cw, "certificate") && !sharedCertificate(cw, s[w0:w1]) {
		return edit{}, false
	}
	// A bare "key" right next to a digest, with no product named, is a
	// cache's or a store's key.
	if digest(s[v0:v1]) && (cb == 0 && bareKey(before[0].w) || ca == 0 && bareKey(after[0].w)) && !anyCapitalised(before, after) {
		return edit{}, false
	}
	return edit{w0, w1, "[REDACTED:" + kindCredential + "]"}, true
}

const noWord = 1 << 30

// proseValueByte: a byte a value written in prose may hold besides a
// run's: what generators of secrets draw from.
func proseValueByte(c byte) bool {
	return runByte[c] || strings.IndexByte("!@#$^&*()=+:|~", c) >= 0
}

// widenProse widens the run s[v0:v1] over the bytes of a value written
// in prose, to the blanks, quotes or line around it, then drops what
// opens or closes a sentence or an aside: "(value)." or "value:".
func widenProse(s string, v0, v1 int) (int, int) {
	a, b := v0, v1
	for a > 0 && v0-a < maxValue && proseValueByte(s[a-1]) {
		a--
	}
	for b < len(s) && b-v1 < maxValue && proseValueByte(s[b]) {
		b++
	}
	for a < v0 && strings.IndexByte("(:=", s[a]) >= 0 {
		a++
	}
	for b > v1 && strings.IndexByte(".,;:!?)", s[b-1]) >= 0 {
		b--
	}
	// Widened over code ("len(x)+y") or a path, it is the run alone.
	if (a < v0 || b > v1) && (strings.ContainsAny(s[a:b], "()") && wordlike(s[a:b]) || strings.Count(s[a:b], "/") > 1 || hostLed(s[a:b])) {
		return v0, v1
	}
	// A word glued by ':' or '=' (token:abc..., key=abc...) is a name,
	// not the value's.
	if k := strings.IndexAny(s[a:b], ":="); k > 0 && nameBytes(s[a:a+k]) && (credentialName(s[a:a+k]) || allLower(s[a:a+k])) {
		a += k + 1
	}
	return a, b
}

// sentenceWalk appends the words of the sentence from s[i] on, in
// direction dir (-1: before, nearest first), up to sentenceWords of them
// within sentenceBytes. A line break, its JSON escape, or a full stop,
// '!' or '?' before a blank ends the sentence.
func sentenceWalk(out []word, s string, i, dir int) []word {
	j := i
	for len(out) < cap(out) && abs(j-i) < sentenceBytes {
		for abs(j-i) < sentenceBytes {
			var c byte
			if dir < 0 && j > 0 {
				c = s[j-1]
			} else if dir > 0 && j < len(s) {
				c = s[j]
			}
			if c == 0 || c == '\n' || c == '\r' {
				return out
			}
			if isWordByte(c) {
				break
			}
			if !proseGap(c, len(out) == 0) {
				return out // a sentence's end, or code's punctuation
			}
			j += dir
		}
		k := j
		if dir < 0 {
			for k > 0 && (isWordByte(s[k-1]) || s[k-1] == '-') {
				k--
			}
			out = append(out, word{s[k:j], k, j})
		} else {
			for k < len(s) && (isWordByte(s[k]) || s[k] == '-') {
				k++
			}
			out = append(out, word{s[j:k], j, k})
		}
		if k == j {
			return out
		}
		// "\n" in JSON: the n glued to a backslash is a line break.
		if dir < 0 && k > 0 && s[k-1] == '\\' && s[k] == 'n' || dir > 0 && j > 0 && s[j-1] == '\\' && s[j] == 'n' {
			return out[:len(out)-1]
		}
		j = k
	}
	return out
}

// proseGap: a byte prose puts between words: blanks, quotes, commas,
// colons, a dash, markdown's asterisks, any non-ASCII byte
// (a typographic dash or quote), and, right next to the value, the
// parentheses of an aside or an arrow's head ("-> <value>"). A full stop (a sentence's end, or code's
// member access), '!', '?', an operator, a brace or a bracket, or a
// call's parenthesis further off ends the window: code is not prose.
func proseGap(c byte, first bool) bool {
	if c >= 0x80 || strings.IndexByte(" \t,;:\"'`-*", c) >= 0 || c == '>' && first {
		return true
	}
	return first && (c == '(' || c == ')')
}

// credentialAt is the index of the nearest word of ws (nearest first)
// that names a credential, or noWord. before says which side of the value
// ws lies: the word a credential word follows in the text is ws[i+1]
// before it and ws[i-1] after it; "public key", "cache key" name none.
func credentialAt(ws []word, before bool) int {
	for i, w := range ws {
		lw := strings.ToLower(w.w)
		n := nounOf(lw)
		if !credentialWord(lw, n) && !proseCredential(lw) || n == "signature" || n == "sig" || n == "signatures" {
			continue // a signature is public
		}
		q := i - 1
		if before {
			q = i + 1
		}
		if q >= 0 && q < len(ws) && bookkeeping(strings.ToLower(ws[q].w)) {
			continue
		}
		return i
	}
	return noWord
}

// proseCredential: words of prose that name a credential beyond a key's
// names: what an Authorization header carries, an app's certificate
// (Agora's is a shared secret, not an X.509 one).
func proseCredential(lw string) bool {
	switch lw {
	case "auth", "authorization", "bearer", "passphrase", "passphrases", "certificate", "dsn":
		return true
	}
	return false
}

// identifierAt is the index of the nearest identifier's word, or noWord.
func identifierAt(ws []word) int {
	for i, w := range ws {
		if identifierWord(nounOf(strings.ToLower(w.w))) {
			return i
		}
	}
	return noWord
}

// nameBytes: letters, '_' and '-' only, as a name is written.
func nameBytes(n string) bool {
	for i := 0; i < len(n); i++ {
		if c := n[i]; !isLetter(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// leadsOn: a word that, right after a value, goes on to say what it is
// ("<value> is our ... key", "<value> in the logs; it looks like the
// ... token", "<value> into the ... key field"); a git log's subject
// after a commit's hash ("<sha> Fix token refresh") does not.
func leadsOn(w string) bool {
	switch strings.ToLower(w) {
	case "is", "was", "are", "were", "in", "into", "as", "for", "from", "it", "which", "that", "to", "on", "at",
		"and", "looks", "seems", "belongs", "should", "must", "will", "has", "had", "here", "there":
		return true
	}
	return false
}

// wordAt is the nearer of before[cb] and after[ca].
func wordAt(before, after []word, cb, ca int) string {
	if cb <= ca {
		return before[cb].w
	}
	return after[ca].w
}

func bareKey(w string) bool { return strings.EqualFold(w, "key") }

func anyCapitalised(a, b []word) bool {
	for _, ws := range [][]word{a, b} {
		for _, w := range ws {
			if capitalised(w.w) {
				return true
			}
		}
	}
	return false
}

// basicPair: the run is base64 of "user:password" (HTTP Basic
// credentials, a registry's auth in Docker's config.json, Elastic's
// "id:api_key") or of SASL PLAIN's "\0user\0password": whatever the
// words around it, it holds a password. Padded standard base64 only, as
// these are written; the decoded bytes must be printable with no blank,
// the user a name's bytes and the password six bytes or more.
func basicPair(v string) bool {
	if len(v) < 12 || len(v) > 512 || len(v)%4 != 0 || !asciiLead(v[0]) || !asciiLead(v[4]) || !asciiLead(v[8]) || !isBase64(v) || isHex(v) {
		return false
	}
	var buf [384]byte
	n, err := base64.StdEncoding.Decode(buf[:], []byte(v))
	if err != nil {
		return false
	}
	d := buf[:n]
	if len(d) > 0 && d[0] == 0 { // SASL PLAIN: \0user\0password
		d = d[1:]
		k := bytes.IndexByte(d, 0)
		return k > 0 && len(d)-k-1 >= 6 && printable(d[:k]) && printable(d[k+1:])
	}
	k := bytes.IndexByte(d, ':')
	if k < 1 || len(d)-k-1 < 6 || bytes.IndexByte(d[k+1:], ':') >= 0 && bytes.HasPrefix(d[k+1:], []byte("//")) {
		return false
	}
	for _, c := range d[:k] {
		if !isAlnum(c) && strings.IndexByte("._@+-", c) < 0 {
			return false
		}
	}
	// "cursor:858aafea", "offset:1200": a page's position, not a login.
	if u := strings.ToLower(string(d[:k])); bookkeeping(u) || identifierWord(u) || paging(u) {
		return false
	}
	return printable(d[k+1:]) && !bytes.HasPrefix(d[k+1:], []byte("//"))
}

// asciiLead: a byte that can open a group of four in the base64 of
// printable ASCII (the top six bits of 0x20-0x7e: I-Z, a-f), or A for a
// NUL: most runs (hex, random tokens) fail at the first group.
func asciiLead(c byte) bool {
	return c == 'A' || c >= 'I' && c <= 'Z' || c >= 'a' && c <= 'f'
}

// printable: ASCII with no blank, quote or brace (not JSON, not prose).
func printable(d []byte) bool {
	for _, c := range d {
		if c <= ' ' || c >= 0x7f || c == '"' || c == '{' || c == '}' {
			return false
		}
	}
	return len(d) > 0
}

// productObject: a random value that a sentence about a product gives
// with no word for what it is ("Deepgram gave me <value> yesterday"):
// a product's name among the words before it (not the sentence's first
// word, which any sentence capitalises), no identifier's word in the
// sentence (the caller's), and a value as long and as random as keys
// are: 32 hex digits or more, or 24 bytes or more of both cases and
// digits, close to a byte in two distinct, in a key's alphabet (letters,
// digits, '-' and '_').
func productObject(s, v string, before []word) bool {
	if len(v) < 24 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isAlnum(v[i]) && v[i] != '-' && v[i] != '_' {
			return false // a path, a checksum's base64, a version: not a key's alphabet
		}
	}
	st := statsOf(v)
	switch {
	case st.hexOnly() && st.upper == 0:
		if len(v) < 32 || st.digit == 0 || st.hexLetters == 0 || entropy(v) < 3.3 {
			return false
		}
	case st.lower > 0 && st.upper > 0 && st.digit > 0:
		if entropy(v) < 4.0 || wordlike(v) {
			return false
		}
	default:
		return false
	}
	for i := 0; i < len(before)-1; i++ {
		w := before[i].w
		if quoted := before[i].a > 0 && strings.IndexByte("\"'`", s[before[i].a-1]) >= 0; quoted {
			continue // a JSON key ("TagSum": ...), not a product's name
		}
		if capitalised(w) && !identifierWord(nounOf(strings.ToLower(w))) && !bookkeeping(strings.ToLower(w)) {
			return true
		}
	}
	return false
}

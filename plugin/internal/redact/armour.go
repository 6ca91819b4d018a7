package redact

import (
	"slices"
	"strings"
)

// Armoured blocks, by their framing rather than by their label. Any
// "-----BEGIN <label>-----" (RFC 7468's PEM, OpenPGP's armour, OpenVPN's
// static keys) or "---- BEGIN <label> ----" (RFC 4716's SSH2 keys) whose
// label says PRIVATE, SECRET or KEY is a secret, whatever the label's
// vendor: the whole block goes, up to its END line, or, when the text
// stops before one (a key cut by head or a page size), the header and
// the body lines that follow it. A label that says PUBLIC or
// CERTIFICATE is public by design (certificates, public keys, PGP public
// key blocks, signatures, messages, CRLs) and stays, so that a
// certificate chain an agent reads stays searchable.
//
// PuTTY's .ppk files are not armoured: their private part is the N
// base64 lines after "Private-Lines: N", and "Private-MAC:" checks it.
// Both go, the field names stay.
//
// The scanner's one pass over the input finds the headers and field
// names (markLits), so text without them costs nothing here.

// markLits are the literals the scanner marks for this stage.
var markLits = []string{"-----begin", "---- begin", "private-lines", "private-mac", "untrusted comment:",
	"secret", "password", "passphrase", "credential", "token", "auth"}

// kindPrivate is the marker's kind for every armoured or PuTTY secret,
// the one the private_key rule writes.
const kindPrivate = "private_key"

// maxLabel bounds an armour label.
const maxLabel = 64

// maxArmour bounds a block: an END line further on is not looked for.
const maxArmour = 1 << 20

// marked judges the marked literal at s[i:], returning its edit.
func marked(s string, i int) (edit, bool) {
	switch lowerTab[s[i]] {
	case '-':
		return armoured(s, i)
	case 'u':
		return commentedKey(s, i+len("untrusted comment:"))
	}
	switch {
	case hasLowerPrefix(s[i:], "private-lines"):
		return ppkLines(s, i+len("private-lines"))
	case hasLowerPrefix(s[i:], "private-mac"):
		return ppkMAC(s, i+len("private-mac"))
	}
	return namedInProse(s, i)
}

// armourHeader reads the header at s[i:]: its label, where it ends, and
// the dashes that open and close its lines (5, or 4 for SSH2's form).
func armourHeader(s string, i int) (label string, end int, dashes int, ok bool) {
	open, close := "-----begin ", "-----"
	dashes = 5
	if !hasLowerPrefix(s[i:], open) {
		open, close, dashes = "---- begin ", " ----", 4
		if !hasLowerPrefix(s[i:], open) {
			return "", 0, 0, false
		}
	}
	j := i + len(open)
	k := labelEnd(s, j)
	if k == j || k-j > maxLabel || !strings.HasPrefix(s[k:], close) && !(dashes == 4 && strings.HasPrefix(s[k-1:], close)) {
		return "", 0, 0, false
	}
	if dashes == 4 && !strings.HasPrefix(s[k:], close) {
		k-- // the label's last blank opens " ----"
	}
	return s[j:k], k + len(close), dashes, true
}

func armourLabelByte(c byte) bool {
	return isAlnum(c) || c == ' ' || c == '_' || c == '.' || c == '/'
}

// labelEnd is where a label starting at s[j] ends: its bytes, and dashes
// inside it (OpenVPN's "tls-crypt-v2 client key") up to the run of four
// or five that closes the line, at most maxLabel+1 bytes on.
func labelEnd(s string, j int) int {
	k := j
	for k < len(s) && k-j <= maxLabel {
		if c := s[k]; !armourLabelByte(c) && !(c == '-' && !strings.HasPrefix(s[k:], "----")) {
			break
		}
		k++
	}
	return k
}

// secretLabel: the label names private or secret material.
func secretLabel(label string) bool {
	u := strings.ToUpper(label)
	if strings.Contains(u, "PUBLIC") || strings.Contains(u, "CERTIFICATE") {
		return false
	}
	return strings.Contains(u, "PRIVATE") || strings.Contains(u, "SECRET") || strings.Contains(u, "KEY")
}

// armoured is the block whose header starts at s[i], if it is a secret's.
func armoured(s string, i int) (edit, bool) {
	label, h, dashes, ok := armourHeader(s, i)
	if !ok || !secretLabel(label) {
		return edit{}, false
	}
	endMark := "-----end "
	if dashes == 4 {
		endMark = "---- end "
	}
	body, last := 0, h
	for j, n := h, 0; j < len(s) && j-h < maxArmour; n++ {
		j = lineBreaks(s, j)
		if j >= len(s) {
			break
		}
		if hasLowerPrefix(s[j:], endMark) {
			if e := armourEnd(s, j, dashes); e > 0 {
				return edit{i, e, "[REDACTED:" + kindPrivate + "]"}, true
			}
			break
		}
		k := j
		for k < len(s) && armourBodyByte(s[k]) {
			k++
		}
		tok := s[j:k]
		switch {
		case k == j:
			j = len(s) // a byte no block holds: the block stops here
			continue
		case isBase64(tok):
			body += len(tok)
			last = k
			if len(tok) < 16 && body > len(tok) {
				// A short line ends a body: only END may follow it.
				if e := lineBreaks(s, k); e < len(s) && hasLowerPrefix(s[e:], endMark) {
					j = k
					continue
				}
				j = len(s)
				continue
			}
		case body == 0 && n < 8 && s[k-1] == ':':
			// A header field (Proc-Type:, Comment:, Version:): its
			// value is the rest of the line.
			k = lineEnd(s, k)
			last = k
		default:
			j = len(s)
			continue
		}
		j = k
	}
	if body < 16 {
		return edit{}, false
	}
	return edit{i, last, "[REDACTED:" + kindPrivate + "]"}, true
}

// isBase64: letters, digits, '+', '/' and '='.
func isBase64(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isAlnum(c) && c != '+' && c != '/' && c != '=' {
			return false
		}
	}
	return true
}

// armourBodyByte: a byte of a body line or of a header field's.
func armourBodyByte(c byte) bool {
	return isAlnum(c) || strings.IndexByte("+/=:,.-_@()", c) >= 0
}

// armourEnd is where the END line at s[j:] ends, or 0.
func armourEnd(s string, j, dashes int) int {
	start := j + 4 + dashes
	k := labelEnd(s, start)
	if dashes == 5 && strings.HasPrefix(s[k:], "-----") {
		return k + 5
	}
	if dashes == 4 && k > start && strings.HasPrefix(s[k-1:], " ----") {
		return k + 4
	}
	return 0
}

// lineBreaks skips blanks, line breaks and their JSON escapes (\n, \r,
// \t, to any depth of escaping).
func lineBreaks(s string, j int) int {
	for j < len(s) {
		switch c := s[j]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			j++
		case c == '\\':
			k := j
			for k < len(s) && s[k] == '\\' {
				k++
			}
			if k < len(s) && (s[k] == 'n' || s[k] == 'r' || s[k] == 't') {
				j = k + 1
				continue
			}
			return j
		default:
			return j
		}
	}
	return j
}

// lineEnd is where the line at s[j:] ends: a line break or its JSON
// escape.
func lineEnd(s string, j int) int {
	for ; j < len(s); j++ {
		switch s[j] {
		case '\n', '\r':
			return j
		case '\\':
			// A line break's escape ends the line; an escaped quote or
			// backslash (Comment: \"rsa-key\") is the line's content.
			k := j
			for k < len(s) && s[k] == '\\' {
				k++
			}
			if k < len(s) && (s[k] == 'n' || s[k] == 'r') {
				return j
			}
			j = k
		}
	}
	return j
}

// commentedKey takes the key line after minisign's and signify's
// "untrusted comment:" (s[j:] is what follows it) when the comment says
// the file holds a secret key: the comment line stays, the base64 line
// under it goes. A public key's or a signature's comment ("signature
// from ... secret key") is public and stays.
func commentedKey(s string, j int) (edit, bool) {
	e := lineEnd(s, j)
	if e-j > 256 {
		return edit{}, false
	}
	c := strings.ToLower(s[j:e])
	if !(strings.Contains(c, "secret key") || strings.Contains(c, "private key")) || strings.Contains(c, "signature") || strings.Contains(c, "public") {
		return edit{}, false
	}
	a := lineBreaks(s, e)
	if a == e {
		return edit{}, false // the key is on the next line
	}
	b := a
	for b < len(s) && (isAlnum(s[b]) || s[b] == '+' || s[b] == '/' || s[b] == '=') {
		b++
	}
	if b-a < 40 {
		return edit{}, false
	}
	return edit{a, b, "[REDACTED:" + kindPrivate + "]"}, true
}

// ppkLines takes the base64 lines after "Private-Lines:" (s[j:] is what
// follows the name): as many as it says, or as many as there are.
func ppkLines(s string, j int) (edit, bool) {
	j = blanks(s, j, 8)
	if j >= len(s) || s[j] != ':' {
		return edit{}, false
	}
	j = blanks(s, j+1, 8)
	n, k := 0, j
	for k < len(s) && k-j < 4 && isDigit(s[k]) {
		n = n*10 + int(s[k]-'0')
		k++
	}
	if k == j || n == 0 {
		return edit{}, false
	}
	first, last := -1, -1
	for line := 0; line < n; line++ {
		a := lineBreaks(s, k)
		b := a
		for b < len(s) && (isAlnum(s[b]) || s[b] == '+' || s[b] == '/' || s[b] == '=') {
			b++
		}
		if b-a < 4 || b < len(s) && s[b] == ':' {
			break
		}
		if first < 0 {
			first = a
		}
		last, k = b, b
	}
	if first < 0 {
		return edit{}, false
	}
	return edit{first, last, "[REDACTED:" + kindPrivate + "]"}, true
}

// ppkMAC takes the hex after "Private-MAC:".
func ppkMAC(s string, j int) (edit, bool) {
	j = blanks(s, j, 8)
	if j >= len(s) || s[j] != ':' {
		return edit{}, false
	}
	a := blanks(s, j+1, 8)
	b := a
	for b < len(s) && isHex(s[b:b+1]) {
		b++
	}
	if b-a < 32 {
		return edit{}, false
	}
	return edit{a, b, "[REDACTED:" + kindPrivate + "]"}, true
}

// markIndex finds the marked literals in s by search: what the scanner
// finds in its pass, for texts that had none (the sequential reference,
// decoded text).
func markIndex(s string) []int {
	var out []int
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerTab[c]
	}
	lower := string(b)
	for _, lit := range markLits {
		for i := 0; ; {
			k := strings.Index(lower[i:], lit)
			if k < 0 {
				break
			}
			out = append(out, i+k)
			i += k + 1
		}
	}
	slices.Sort(out)
	return out
}

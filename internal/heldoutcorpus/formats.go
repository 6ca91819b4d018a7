package heldoutcorpus

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Kind groups formats by what a detector needs to see to find them.
type Kind string

const (
	// Armour is a multi-line key file: a BEGIN/END block of any label,
	// a PuTTY key file, a WireGuard or age key file, a signify key.
	Armour Kind = "armour"
	// Vendor is a bare hex or base64 key with no prefix of its own: only
	// the vendor's name in the words around it says what it is.
	Vendor Kind = "vendor"
	// Punct is a value holding ':', '//', '/', '+' or '=' that a token
	// scanner would cut in pieces.
	Punct Kind = "punctuated"
	// Conn is a connection string whose password is the secret.
	Conn Kind = "connection"
	// Structured is a token with a shape of its own (a bootstrap token, a
	// prefixed token, a key id beside its account).
	Structured Kind = "structured"
)

// Kinds lists every kind, in report order.
var Kinds = []Kind{Armour, Vendor, Punct, Conn, Structured}

// Value is one drawn credential.
type Value struct {
	// Text is the credential as it is pasted: the token, the whole
	// connection string, or the whole key file.
	Text string
	// Secrets are the substrings of Text that must disappear.
	Secrets []string
	// Inline, for a key file, is the key alone, as prose quotes it.
	Inline string
	// Extra is context a template needs beside the value (an account's
	// e-mail address, a CA hash).
	Extra string
}

// format is one published credential format.
type format struct {
	name, vendor string
	kind         Kind
	// overlap, when set, says what else already covers this format; such
	// a format is kept because the weakness it probes was reported on it.
	overlap string
	words   []string // how prose names it
	names   []string // assignment names
	keys    []string // JSON keys
	params  []string // URL query parameter names
	path    string   // a key file's usual path
	gen     func(*rand.Rand) Value
	// tmpl replaces the default templates of a form: %[1]s the words,
	// %[2]s the value, %[3]s Value.Extra.
	tmpl map[Form][]string
	// jsonExtra is a member written before the value's in JSON objects
	// (%[3]s is Value.Extra).
	jsonExtra string
}

// Format describes one format of the corpus.
type Format struct {
	Name, Vendor string
	Kind         Kind
	// Overlap is empty for a format no gitleaks rule names and no earlier
	// corpus holds; otherwise it says which does.
	Overlap string
}

// Formats lists the corpus's formats.
func Formats() []Format {
	out := make([]Format, len(formats))
	for i, f := range formats {
		out[i] = Format{Name: f.name, Vendor: f.vendor, Kind: f.kind, Overlap: f.overlap}
	}
	return out
}

// one is a Value whose whole text is the secret.
func one(g func(*rand.Rand) string) func(*rand.Rand) Value {
	return func(r *rand.Rand) Value {
		s := g(r)
		return Value{Text: s, Secrets: []string{s}}
	}
}

func str(alphabet string, n int) func(*rand.Rand) string {
	return func(r *rand.Rand) string { return rs(r, alphabet, n) }
}

func prefixed(p, alphabet string, n int) func(*rand.Rand) string {
	return func(r *rand.Rand) string { return p + rs(r, alphabet, n) }
}

func split(s string) []string { return strings.Split(s, "|") }

// vendor is a bare key after a vendor's name: words and names are
// '|'-separated lists.
func vendor(name, vend, words, names string, g func(*rand.Rand) string) format {
	return format{name: name, vendor: vend, kind: Vendor, words: split(words), names: split(names), gen: one(g)}
}

// withSlash draws a 40-byte base64 secret with at least one '/' and one
// '+', as AWS-style secret access keys often have.
func withSlash(r *rand.Rand) string {
	b := []byte(rs(r, b64, 40))
	b[1+r.IntN(18)] = '/'
	b[20+r.IntN(19)] = '+'
	return string(b)
}

// userPass is a user:password pair whose password is the secret.
func userPass(user func(*rand.Rand) string, pass func(*rand.Rand) string) func(*rand.Rand) Value {
	return func(r *rand.Rand) Value {
		p := pass(r)
		return Value{Text: user(r) + ":" + p, Secrets: []string{p}}
	}
}

// secretIn builds a Value whose Text is f(secret).
func secretIn(sec func(*rand.Rand) string, wrap func(r *rand.Rand, s string) string) func(*rand.Rand) Value {
	return func(r *rand.Rand) Value {
		s := sec(r)
		return Value{Text: wrap(r, s), Secrets: []string{s}}
	}
}

func fcmServerKey(r *rand.Rand) string {
	return "AAAA" + rs(r, urlb64, 7) + ":APA91b" + rs(r, urlb64, 134)
}

func googleRefresh(r *rand.Rand) string {
	return "1//0" + pick(r, "3", "4", "5", "6", "9", "c", "d", "e", "f", "g") + rs(r, urlb64, 98)
}

func elasticKey(r *rand.Rand) string {
	return base64.StdEncoding.EncodeToString([]byte(rs(r, urlb64, 20) + ":" + rs(r, urlb64, 22)))
}

func dockerAuth(r *rand.Rand) string {
	return base64.StdEncoding.EncodeToString([]byte(pick(r, "ci-bot", "deploy", "robot$builder", "_json_key_base64") + ":" + rs(r, alnum, 24+r.IntN(12))))
}

func mapboxSecret(r *rand.Rand) string {
	claims := fmt.Sprintf(`{"u":"%s","a":"cl%s"}`, pick(r, "acme-maps", "dkim", "geo-team", "fleetops"), rs(r, lowerNum, 23))
	return "sk." + base64.RawURLEncoding.EncodeToString([]byte(claims)) + "." + rs(r, urlb64, 22)
}

func kubeClientKeyData(r *rand.Rand) string {
	pem := "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI" + rs(r, b64, 55) + "\n" + rs(r, b64, 64) + "\n" + rs(r, b64, 28) + "==\n-----END EC PRIVATE KEY-----\n"
	return base64.StdEncoding.EncodeToString([]byte(pem))
}

func gcpKeyID(r *rand.Rand) Value {
	id := rs(r, lowhex, 40)
	email := pick(r, "loader", "ci-deploy", "terraform", "bq-export", "sa-backup") + "@" + pick(r, "acme", "prod", "data") + "-" + rs(r, lowerNum, 6) + ".iam.gserviceaccount.com"
	return Value{Text: id, Secrets: []string{id}, Extra: email}
}

func kubeadmToken(r *rand.Rand) Value {
	t := rs(r, lowerNum, 6) + "." + rs(r, lowerNum, 16)
	return Value{Text: t, Secrets: []string{t}, Extra: rs(r, lowhex, 64)}
}

// gcpTmpl puts a key id next to its service account's e-mail address.
var gcpTmpl = map[Form][]string{
	Prose: {
		"The service account %[3]s uses the private key id %[2]s; rotate it after the audit.",
		"Key %[2]s belongs to %[3]s and was downloaded to a laptop last week.",
		"%[3]s authenticates with key %[2]s (created by terraform, never rotated).",
		"Disable key %[2]s on %[3]s before Friday.",
	},
	Assign: {
		"private_key_id = %[2]s\nclient_email = %[3]s",
		"GCP_PRIVATE_KEY_ID: %[2]s\nGCP_CLIENT_EMAIL: %[3]s",
		"export GOOGLE_CLIENT_EMAIL=%[3]s\nexport GOOGLE_PRIVATE_KEY_ID=%[2]s",
	},
}

var kubeadmTmpl = map[Form][]string{
	Prose: {
		"Run this on the new node: kubeadm join 10.0.4.12:6443 --token %[2]s --discovery-token-ca-cert-hash sha256:%[3]s",
		"The kubeadm bootstrap token for the worker pool is %[2]s, valid for 24 hours.",
		"I created a new bootstrap token (%[2]s) with kubeadm token create; it expires tomorrow.",
		"Nodes joined with %[2]s as the bootstrap token, then the token was left in the wiki.",
	},
}

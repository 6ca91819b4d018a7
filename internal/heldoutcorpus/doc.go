// Package heldoutcorpus is a held-out benchmark for the secret redactor,
// written before the detector was tuned on it, and FROZEN.
//
// It holds four generated corpora, each drawn from a seed with
// math/rand/v2, so one seed is always the same text:
//
//   - Cases: credentials in formats that no gitleaks rule names and that
//     internal/secretcorpus does not hold (armoured blocks, vendors' bare
//     keys, values with ':', '/', '+' or '=', connection strings,
//     structured tokens), each drawn from the shape its vendor publishes,
//     in four forms: prose, an assignment, JSON, and a URL whose query
//     value holds it percent-encoded (armoured blocks: the block alone,
//     in prose, in a JSON string and in a URL).
//   - Identifiers: ticket keys, dashed upper-case ids, UUIDs, SHAs, trace
//     and request ids, pod and container names, versions, dates, and
//     assignments whose value is an identifier, in prose, JSON, logs and
//     code. None of them may be redacted.
//   - Clean: code, manifests, lockfiles with integrity hashes, tickets,
//     logs and base64 images with no credential in them.
//
// Frozen means: once a detector has been measured or tuned against this
// corpus, the corpus is no longer held out. Do not edit its formats,
// templates, alphabets or seeds to make a figure better or worse; write a
// new corpus (a new package) instead and keep this one as it is, so that
// figures measured on it stay comparable across commits. Bugs that make a
// case wrong (a secret missing from its own text) are the one exception,
// and such a fix says so in its commit.
package heldoutcorpus

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"strings"
)

// Seeds are the seeds every figure is measured over.
var Seeds = []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}

// Window is the length of the runs of a secret that must not survive
// redaction: a case is caught only if no Window-byte stretch of any of
// its secrets (raw or as encoded in the text) is left.
const Window = 12

const (
	alnum    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	lowhex   = "0123456789abcdef"
	uphex    = "0123456789ABCDEF"
	digits   = "0123456789"
	lowerNum = "abcdefghijklmnopqrstuvwxyz0123456789"
	upperNum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	lower    = "abcdefghijklmnopqrstuvwxyz"
	b64      = alnum + "+/"
	urlb64   = alnum + "-_"
	bech32U  = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
	bech32L  = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
	// k8sSafe is the alphabet Kubernetes draws generated name suffixes
	// from (no vowels, no look-alike digits).
	k8sSafe = "bcdfghjklmnpqrstvwxz2456789"
)

func rs(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return b
}

// b64Of is the standard base64 of n random bytes, as keys printed with
// `openssl rand -base64 n` or a vendor's console look.
func b64Of(r *rand.Rand, n int) string { return base64.StdEncoding.EncodeToString(randBytes(r, n)) }

func pick(r *rand.Rand, xs ...string) string { return xs[r.IntN(len(xs))] }

// jsonEsc is s as it stands inside a JSON string, the way Go writes it
// (with '&', '<' and '>' as \u0026, \u003c and \u003e).
func jsonEsc(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// jsonStr is s as a JSON string, quotes included.
func jsonStr(s string) string { return `"` + jsonEsc(s) + `"` }

// lines cuts s into lines of n bytes.
func lines(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func uuidHex(r *rand.Rand, version byte) string {
	h := rs(r, lowhex, 32)
	v := []byte(h)
	v[12] = version
	v[16] = "89ab"[r.IntN(4)]
	h = string(v)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func slug(s string) string {
	return strings.Trim(strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			return c
		case c >= 'A' && c <= 'Z':
			return c + 'a' - 'A'
		}
		return '-'
	}, s), "-")
}

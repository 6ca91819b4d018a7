package redact

import (
	"math/rand/v2"
	"testing"

	"github.com/ctxhook/ctxhook/internal/secretcorpus"
)

// TestWordlike: names from code read as words; random bodies of the
// alphabets vendors use do not (at most 2% of them at 20 bytes, fewer when longer).
func TestWordlike(t *testing.T) {
	names := []string{
		"OpAMD64VPADDQMasked256", "OpAMD64VCVTDQ2PDMasked256Merging", "tls13.NewEarlySecret", "int32/Elem=int32",
		"strings.TrimPrefix", "C._goboringcrypto_RSA_new", "js_1.normalizeWindowsPath", "HashAlgorithm.SHA3_384",
		"ETHTOOL_LINK_MODE_400000baseCR4_Full_BIT", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "sigPerThreadSyscall",
		"MakeCacheKey_cockroach7504", "X509Certificate.fromJSON", "OpARM64LoweredAtomicAdd64Variant",
	}
	for _, n := range names {
		if !wordlike(n) {
			t.Errorf("wordlike(%q) = false", n)
		}
	}
	r := rand.New(rand.NewPCG(3, 3))
	for _, a := range []struct {
		name, alphabet string
	}{{"base62", secretcorpus.Alnum}, {"lower+digits", "abcdefghijklmnopqrstuvwxyz0123456789"}, {"upper+digits", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"}, {"base32", "abcdefghijklmnopqrstuvwxyz234567"}, {"base64url", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"}} {
		for _, n := range []int{20, 24, 32, 48} {
			words := 0
			const draws = 4000
			for i := 0; i < draws; i++ {
				if wordlike(secretcorpus.RandString(r, a.alphabet, n)) {
					words++
				}
			}
			t.Logf("%s of %d: %.2f%% read as words", a.name, n, 100*float64(words)/draws)
			if words*50 > draws {
				t.Errorf("%s of %d: %d of %d random bodies read as words", a.name, n, words, draws)
			}
		}
	}
}

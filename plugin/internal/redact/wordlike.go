package redact

// A name in code is made of words, abbreviations and mnemonics
// (OpAMD64VPADDQMasked256, tls13.NewEarlySecret, int32/Elem=int32); a
// random body is made of short runs (a case flip or a digit every two
// bytes) and of letter pairs words seldom hold (qz, xv, jk). wordlike
// reads a value both ways, so that a short body after a prefix
// (hvs.<24>) can be taken without taking pkg.Identifier.

// rareLevel: a letter pair fewer than 15 words of the sample hold
// (tools/wordgrams) is rare: 65% of all pairs, and so of a random
// body's. maxRare: a name made of words has at most a quarter of its
// pairs rare. Measured on random bodies of 20 to 48 bytes (base62,
// base64url, base32, upper or lower case and digits), 0% to 1.9% read
// as words (TestWordlike); the longer, the fewer.
const (
	rareLevel = 3
	maxRare   = 4 // a quarter
)

// rarePair: a rare letter pair in words.
func rarePair(a, b byte) bool {
	return wordgrams[int(a|0x20-'a')*26+int(b|0x20-'a')] <= rareLevel
}

// wordlike: v's letters and digits fall into segments (a camel-case
// word, an upper-case run, a lower-case run, each with the digits after
// it) of 3 bytes or more on average, and at most a quarter of the
// letter pairs in its words are rare. Upper-case runs in a name that
// also has lower case are abbreviations and mnemonics (AMD, VPADDQ),
// not words: their pairs are not counted.
func wordlike(v string) bool {
	hasLower := false
	for i := 0; i < len(v); i++ {
		if v[i] >= 'a' && v[i] <= 'z' {
			hasLower = true
			break
		}
	}
	hasUpper := false
	for i := 0; i < len(v); i++ {
		if isUpperByte(v[i]) {
			hasUpper = true
			break
		}
	}
	n, segs, pairs, rare := 0, 0, 0, 0
	for i := 0; i < len(v); {
		c := v[i]
		if !isAlnum(c) {
			i++
			continue
		}
		segs++
		j, acronym := wordEnd(v, i)
		k := j
		for k < len(v) && isDigit(v[k]) {
			k++
		}
		n += k - i
		if !acronym || !hasLower {
			for p := i; p+1 < j; p++ {
				pairs++
				if rarePair(v[p], v[p+1]) {
					rare++
				}
			}
		}
		i = k
	}
	if segs == 0 {
		return false
	}
	// In both cases, random segments are 2 bytes long on average; 5 or
	// more are a name's words, however rare their pairs
	// (ADDLconstmodifyidx4).
	return n >= 3*segs && rare*maxRare <= pairs || hasLower && hasUpper && n >= 5*segs
}

// wordEnd returns where the letters of the segment at v[i] end: a camel
// word (Upper lower...), a lower-case run, or an upper-case run (less
// its last letter when a lower-case one follows it: HTTPServer), and
// whether it was an upper-case run. A segment that starts with a digit
// has no letters.
func wordEnd(v string, i int) (int, bool) {
	j := i
	switch {
	case isDigit(v[i]):
		return i, false
	case isUpperByte(v[i]) && i+1 < len(v) && isUpperByte(v[i+1]):
		for j < len(v) && isUpperByte(v[j]) && !(j+1 < len(v) && isLowerByte(v[j+1])) {
			j++
		}
		return j, true
	default:
		j++
		for j < len(v) && isLowerByte(v[j]) {
			j++
		}
		return j, false
	}
}

func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isUpperByte(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLowerByte(c byte) bool { return c >= 'a' && c <= 'z' }

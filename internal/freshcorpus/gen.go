package freshcorpus

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

const (
	lowhex   = "0123456789abcdef"
	uphex    = "0123456789ABCDEF"
	digits   = "0123456789"
	lower    = "abcdefghijklmnopqrstuvwxyz"
	upper    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	alnum    = upper + lower + digits
	lowalnum = lower + digits
	b64      = alnum + "+/"
	urlb64   = alnum + "-_"
	base58   = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	punctpw  = alnum + "!#%&*+-.:;=?@^_~/$"
)

func rs(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

func pick(r *rand.Rand, xs ...string) string { return xs[r.IntN(len(xs))] }

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return b
}

func b64Of(r *rand.Rand, n int) string { return base64.StdEncoding.EncodeToString(randBytes(r, n)) }

func uuid(r *rand.Rand) string {
	h := rs(r, lowhex, 32)
	return fmt.Sprintf("%s-%s-4%s-%s%s-%s", h[:8], h[8:12], h[13:16], pick(r, "8", "9", "a", "b"), h[17:20], h[20:])
}

// password draws a human-chosen-looking strong password: mixed classes,
// punctuation, 14 to 24 characters, never all alphanumeric.
func password(r *rand.Rand) string {
	for {
		p := rs(r, punctpw, 14+r.IntN(11))
		if strings.ContainsAny(p, "!#%&*+-.:;=?@^_~/$") && strings.ContainsAny(p, digits) {
			return p
		}
	}
}

func str(alphabet string, n int) func(*rand.Rand) string {
	return func(r *rand.Rand) string { return rs(r, alphabet, n) }
}

func prefixed(p, alphabet string, n int) func(*rand.Rand) string {
	return func(r *rand.Rand) string { return p + rs(r, alphabet, n) }
}

func split(s string) []string { return strings.Split(s, "|") }

// bip39 holds real BIP-39 English words (the list's first part, in order).
var bip39 = split("abandon|ability|able|about|above|absent|absorb|abstract|absurd|abuse|access|accident|account|accuse|achieve|acid|acoustic|acquire|across|act|action|actor|actress|actual|adapt|add|addict|address|adjust|admit|adult|advance|advice|aerobic|affair|afford|afraid|again|age|agent|agree|ahead|aim|air|airport|aisle|alarm|album|alcohol|alert|alien|all|alley|allow|almost|alone|alpha|already|also|alter|always|amateur|amazing|among|amount|amused|analyst|anchor|ancient|anger|angle|angry|animal|ankle|announce|annual|another|answer|antenna|antique|anxiety|any|apart|apology|appear|apple|approve|april|arch|arctic|area|arena|argue|arm|armed|armor|army|around|arrange|arrest|arrive|arrow|art|artefact|artist|artwork|ask|aspect|assault|asset|assist|assume|asthma|athlete|atom|attack|attend|attitude|attract|auction|audit|august|aunt|author|auto|autumn|average|avocado|avoid|awake|aware|away|awesome|awful|awkward|axis|baby|bachelor|bacon|badge|bag|balance|balcony|ball|bamboo|banana|banner|bar|barely|bargain|barrel|base|basic|basket|battle|beach|bean|beauty|because|become|beef|before|begin|behave|behind|believe|below|belt|bench|benefit|best|betray|better|between|beyond|bicycle|bid|bike|bind|biology|bird|birth|bitter|black|blade|blame|blanket|blast|bleak|bless|blind|blood|blossom|blouse|blue|blur|blush|board|boat|body|boil|bomb|bone|bonus|book|boost|border|boring|borrow|boss|bottom|bounce|box|boy|bracket|brain|brand|brass|brave|bread|breeze|brick|bridge|brief|bright|bring|brisk|broccoli|broken|bronze|broom|brother|brown|brush|bubble|buddy|budget|buffalo|build|bulb|bulk|bullet|bundle|bunker|burden|burger|burst|bus|business|busy|butter|buyer|buzz|cabbage|cabin|cable|cactus")

func mnemonic(r *rand.Rand) string {
	n := 12
	if r.IntN(3) == 0 {
		n = 24
	}
	w := make([]string, n)
	for i := range w {
		w[i] = bip39[r.IntN(len(bip39))]
	}
	return strings.Join(w, " ")
}

func bcryptHash(r *rand.Rand) string {
	return "$2y$" + pick(r, "10", "11", "12") + "$" + rs(r, alnum+"./", 53)
}

func apr1Hash(r *rand.Rand) string {
	return "$apr1$" + rs(r, alnum+"./", 8) + "$" + rs(r, alnum+"./", 22)
}

func ansibleVault(r *rand.Rand) string {
	h := rs(r, lowhex, 80*(4+r.IntN(5))+r.IntN(40)*2)
	var b strings.Builder
	b.WriteString("$ANSIBLE_VAULT;1.1;AES256")
	for i := 0; i < len(h); i += 80 {
		b.WriteString("\n" + h[i:min(i+80, len(h))])
	}
	return b.String()
}

func dpapi(r *rand.Rand) string {
	if r.IntN(2) == 0 {
		// ConvertFrom-SecureString output: the blob in hex.
		return "01000000d08c9ddf0115d1118c7a00c04fc297eb01000000" + rs(r, lowhex, 200+2*r.IntN(60))
	}
	raw := append([]byte{1, 0, 0, 0, 0xd0, 0x8c, 0x9d, 0xdf, 0x01, 0x15, 0xd1, 0x11, 0x8c, 0x7a, 0x00, 0xc0, 0x4f, 0xc2, 0x97, 0xeb, 1, 0, 0, 0}, randBytes(r, 150+r.IntN(60))...)
	return base64.StdEncoding.EncodeToString(raw)
}

func swarmToken(r *rand.Rand) string {
	return "SWMTKN-1-" + rs(r, lowalnum, 50) + "-" + rs(r, lowalnum, 25)
}

func matrixToken(r *rand.Rand) string {
	user := base64.RawURLEncoding.EncodeToString([]byte(pick(r, "alice", "ops-bot", "dana", "ci")))
	return "syt_" + user + "_" + rs(r, alnum, 20) + "_" + rs(r, alnum, 6)
}

func cisco7(r *rand.Rand) string {
	return fmt.Sprintf("%02d", r.IntN(16)) + rs(r, uphex, 2*(6+r.IntN(6)))
}

func adyenKey(r *rand.Rand) string {
	return "AQE" + rs(r, alnum, 40) + "/" + rs(r, b64, 30) + "=-" + rs(r, b64, 44) + "=-" + rs(r, alnum+"<>[]()", 16)
}

func lineToken(r *rand.Rand) string { return rs(r, b64, 171) + "=" }

func wif(r *rand.Rand) string { return pick(r, "K", "L") + rs(r, base58, 51) }

func xprv(r *rand.Rand) string { return "xprv9" + rs(r, base58, 106) }

package redact

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// naiveKnown is the reference for the known values' stage: every start
// in the text (and in its decoded form) against every offset of every
// value, walked forward byte by byte.
func naiveKnown(r *Redactor, s string) (string, int) {
	if r.set == nil {
		return s, 0
	}
	ks := r.set
	find := func(t string) [][2]int {
		var out [][2]int
		for v, low := range ks.low {
			for i := range len(t) {
				for j := range len(low) {
					if i > 0 && j > 0 && lowerTab[t[i-1]] == low[j-1] {
						continue // not where a run starts
					}
					b, jb := i, j
					for b < len(t) && jb < len(low) {
						if lowerTab[t[b]] == low[jb] {
							b, jb = b+1, jb+1
						} else if k := breakAt(t, b); k > 0 && b > i && b+k < len(t) && lowerTab[t[b+k]] == low[jb] {
							b += k
						} else {
							break
						}
					}
					whole := j == 0 && jb == len(low)
					if (whole || ks.own[v] && jb-j >= MinKnownRun) && !strings.Contains(markerLower, low[j:jb]) {
						out = append(out, [2]int{i, b})
					}
				}
			}
		}
		slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
		var merged [][2]int
		for _, z := range out {
			if n := len(merged); n > 0 && z[0] < merged[n-1][1] {
				merged[n-1][1] = max(merged[n-1][1], z[1])
			} else {
				merged = append(merged, z)
			}
		}
		return merged
	}
	sp := find(s)
	if d, ok := decodeEscapes(s, ks.quote); ok {
		var back [][2]int
		for _, z := range find(d.s) {
			back = append(back, [2]int{d.from[z[0]], d.to[z[1]-1]})
		}
		sp = mergeSpans(sp, back)
	}
	var b strings.Builder
	last := 0
	for _, z := range sp {
		b.WriteString(s[last:z[0]] + Marker)
		last = z[1]
	}
	return b.String() + s[last:], len(sp)
}

// TestOwnRuns: every run of MinKnownRun bytes of an own value goes, in
// any case, split over a line break, JSON-escaped; a shorter run stays;
// a sensitive variable's value goes only whole.
func TestOwnRuns(t *testing.T) {
	const secret = "f0a1b2c3d4e5f60718293a4b5c6d7e8f9081726354453627181f0e1d2c3b4a59"
	const env = "/home/user/.config/gcloud/credentials.json"
	uesc := func(s string) string {
		var b strings.Builder
		for _, c := range s {
			fmt.Fprintf(&b, `\u%04x`, c)
		}
		return b.String()
	}
	r := NewOwn([]string{secret, "Ab3/Xy9+Qw7/Lm2=Zk8pV4r6"}, env)
	for _, tc := range []struct{ name, in, want string }{
		{"whole", "x " + secret + " y", "x [REDACTED] y"},
		{"all but the last byte", "x " + secret[:63] + " y", "x [REDACTED] y"},
		{"a 12-byte run inside", "x" + secret[20:32] + "y", "x[REDACTED]y"},
		{"an 11-byte run stays", "x " + secret[20:31] + " y", "x " + secret[20:31] + " y"},
		{"upper-cased", "x " + strings.ToUpper(secret[:40]) + " y", "x [REDACTED] y"},
		{"split over two lines, 60 and 4", secret[:60] + "\n" + secret[60:] + " y", "[REDACTED] y"},
		{"split over an escaped CRLF", secret[:60] + `\r\n` + secret[60:] + " y", "[REDACTED] y"},
		{"every character \\u-escaped", "x " + uesc(secret[:30]) + " y", "x [REDACTED] y"},
		{"one escape doubled", `x ` + secret[:30] + fmt.Sprintf(`\\u%04x`, secret[30]) + secret[31:50] + ` y`, "x [REDACTED] y"},
		{"slashes escaped", `x Ab3\/Xy9+Qw7\/Lm2=Zk8pV4r6 y`, "x [REDACTED] y"},
		{"a sensitive variable whole", "cat " + env + ".", "cat [REDACTED]."},
		{"a sensitive variable's part stays", "ls /home/user/.config/gcloud/", "ls /home/user/.config/gcloud/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := r.String(tc.in)
			if got != tc.want {
				t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if want, _ := naiveKnown(r, tc.in); want != got {
				t.Errorf("reference gives %q", want)
			}
		})
	}
}

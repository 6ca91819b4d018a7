package redact

import (
	"slices"
	"sort"
)

// knownSet finds every known value in one pass, however many there are.
// A value is MinKnownLen (8) bytes or more, so wherever it starts, one of
// its first four 4-byte pieces lies on an offset divisible by 4: the text
// is read a 4-byte block at a time, each block tested against a filter
// of those pieces, and a candidate compared in full. That costs about a
// quarter of a search per byte, and one search for all values.
type knownSet struct {
	vals  []string // longest first
	bloom [1 << 12 >> 6]uint64
	// at maps a piece to the values holding it at offset off.
	at map[uint32][]knownPiece
}

type knownPiece struct{ val, off int }

func newKnownSet(vals []string) *knownSet {
	ks := &knownSet{vals: vals, at: map[uint32][]knownPiece{}}
	for v, k := range vals {
		for off := 0; off < 4; off++ {
			w := le32(k, off)
			h := w * hashMul
			ks.bloom[h>>26] |= 1 << (h >> 20 & 63)
			ks.at[w] = append(ks.at[w], knownPiece{v, off})
		}
	}
	return ks
}

func le32(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// find returns every occurrence of every value in s, overlapping ones
// included: per value, the offsets, ascending.
func (ks *knownSet) find(s string) [][]int {
	var out [][]int
	for q := 0; q+4 <= len(s); q += 4 {
		w := le32(s, q)
		h := w * hashMul
		if ks.bloom[h>>26]&(1<<(h>>20&63)) == 0 {
			continue
		}
		for _, pc := range ks.at[w] {
			k := ks.vals[pc.val]
			if p := q - pc.off; p >= 0 && p+len(k) <= len(s) && s[p:p+len(k)] == k {
				if out == nil {
					out = make([][]int, len(ks.vals))
				}
				out[pc.val] = append(out[pc.val], p)
			}
		}
	}
	for _, o := range out {
		if !sort.IntsAreSorted(o) {
			slices.Sort(o)
		}
	}
	return out
}

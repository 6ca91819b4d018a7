// Package signtest compares two series of paired timings without a
// wall-clock bound: the oracle tests ask whether probes that match
// hidden rows take longer than their decoys, on a shared machine whose
// noise hits both halves of a pair alike.
package signtest

import (
	"math"
	"slices"
	"time"
)

// Z is the sign test over paired times: of the n pairs without a tie,
// how many had a slower than b, and how far that count lies from n/2 in
// standard deviations. An outlier counts once, as one sign, whatever
// its size.
func Z(a, b []time.Duration) (z float64, slower, n int) {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			n++
			if a[i] > b[i] {
				slower++
			}
		}
	}
	if n == 0 {
		return 0, 0, 0
	}
	return (float64(slower) - float64(n)/2) / math.Sqrt(float64(n)/4), slower, n
}

// Median is the middle of d (the upper middle for an even count), for
// the log line beside Z; d itself is left unsorted.
func Median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

package signtest

import (
	"fmt"
	"testing"
	"time"
)

func TestZ(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	for _, c := range []struct {
		name      string
		a, b      []time.Duration
		z         float64
		slower, n int
	}{
		{"all ties", ms(1, 2, 3), ms(1, 2, 3), 0, 0, 0},
		{"balanced", ms(2, 1, 2, 1), ms(1, 2, 1, 2), 0, 2, 4},
		{"a always slower", ms(5, 5, 5, 5), ms(1, 1, 1, 1), 2, 4, 4},
		{"one huge outlier counts once", ms(1000, 1, 1, 1), ms(1, 2, 2, 2), -1, 1, 4},
		{"ties left out", ms(3, 1, 1), ms(1, 1, 1), 1, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			z, slower, n := Z(c.a, c.b)
			if z != c.z || slower != c.slower || n != c.n {
				t.Errorf("Z = %v, %d, %d; want %v, %d, %d", z, slower, n, c.z, c.slower, c.n)
			}
		})
	}
}

func TestMedianLeavesInputAlone(t *testing.T) {
	d := []time.Duration{3, 1, 2}
	if m := Median(d); m != 2 {
		t.Errorf("Median = %v, want 2", m)
	}
	if d[0] != 3 || d[1] != 1 {
		t.Errorf("Median sorted its input: %v", d)
	}
	if Median(nil) != 0 {
		t.Error("Median(nil) != 0")
	}
}

func ExampleZ() {
	probe := []time.Duration{5, 6, 5, 7}
	decoy := []time.Duration{4, 4, 6, 4}
	z, slower, n := Z(probe, decoy)
	fmt.Printf("probe slower in %d of %d pairs, z = %.1f\n", slower, n, z)
	// Output: probe slower in 3 of 4 pairs, z = 1.0
}

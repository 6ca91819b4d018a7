package platform

import "testing"

// Make gives exactly n usable bytes at every size, including the ones
// advised, and they hold what is written.
func TestBigBuffer(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 64 << 10, hugeMin - 1, hugeMin, hugeMin + 3<<20 + 17} {
		b := BigBuffer(n)
		if len(b) != n || cap(b) < n {
			t.Fatalf("BigBuffer(%d): len %d cap %d", n, len(b), cap(b))
		}
		for i := range b {
			b[i] = byte(i)
		}
		for i := 0; i < n; i += 4093 {
			if b[i] != byte(i) {
				t.Fatalf("BigBuffer(%d)[%d] = %d", n, i, b[i])
			}
		}
	}
}

func BenchmarkMakeAndFill(b *testing.B) {
	const n = 64 << 20
	b.SetBytes(n)
	for b.Loop() {
		buf := BigBuffer(n)
		for i := 0; i < n; i += 4096 {
			buf[i] = 1
		}
	}
}

func BenchmarkMakeClearedAndFill(b *testing.B) {
	const n = 64 << 20
	b.SetBytes(n)
	for b.Loop() {
		buf := make([]byte, n)
		for i := 0; i < n; i += 4096 {
			buf[i] = 1
		}
	}
}

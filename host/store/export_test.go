package store

import "testing"

// Corpus100kPath is the 100,000-event benchmark store (built once into
// the cache dir), for the benchmarks of packages above the store.
func Corpus100kPath(b *testing.B) string {
	s := corpus100k(b)
	defer s.Close()
	return s.path
}

package store

import (
	"runtime"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestDerivedSize: the size stored for a derived response is the length
// of the response readers rebuild, for texts that need escapes, hold
// characters and invalid bytes across the pieces it is measured in, and
// are empty.
func TestDerivedSize(t *testing.T) {
	euro := strings.Repeat("a", derivedPiece-1) + "€ after" // a character across the first cut
	bad := strings.Repeat("b", derivedPiece-1) + "\xe2\x82" + "\xe2\x82\xac\xff" + strings.Repeat("\"\n\t\x01", 5000)
	cases := map[string]string{
		"empty":       "",
		"plain":       "hello",
		"escapes":     "quote \" slash \\ nl \n cr \r tab \t bell \x07",
		"across":      euro,
		"invalid":     bad,
		"only-escape": strings.Repeat("\n", 3*derivedPiece+7),
		"2028":        strings.Repeat("x\u2028y", derivedPiece),
	}
	for name, text := range cases {
		want := int64(len(abi.TextBlockResponse(text)))
		if got := derivedSize(abi.ResponseFormTextBlock, text); got != want {
			t.Errorf("%s: derivedSize %d, the rebuilt response has %d bytes", name, got, want)
		}
	}
	if got := derivedSize("", "text"); got != 0 {
		t.Errorf("a response that is not derived: size %d, want 0", got)
	}
}

// TestDerivedSizeAllocates: measuring the derived response of a big
// text allocates a small buffer, not a copy of the response (the writer
// measured every big body that way, a fifth of its time on 64 MiB).
func TestDerivedSizeAllocates(t *testing.T) {
	text := strings.Repeat("line of text with a \"quote\"\n", 300_000) // 8.4 MB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	derivedSize(abi.ResponseFormTextBlock, text)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("derivedSize of %d bytes allocated %d bytes; want under 1 MiB", len(text), got)
	}
}

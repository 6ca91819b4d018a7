package ownsecrets

import (
	"slices"
	"testing"
)

// TestDocTokensKeyOfAnotherField: a session document names servers as
// map keys in fields written before "retired" (upstreams). A server named
// "retired" must not hide the document's retired tokens, which the plugin
// then no longer redacts.
func TestDocTokensKeyOfAnotherField(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"upstream named retired", `{"tokens":{"w":"cur-token-123"},"upstreams":{"retired":"node server.js"},"retired":["old-token-456"]}`, "old-token-456"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur, retired := docTokens([]byte(tc.doc))
			if !slices.Contains(append(cur, retired...), tc.want) {
				t.Errorf("docTokens(%s) = %q, %q: %q is missing", tc.doc, cur, retired, tc.want)
			}
		})
	}
}

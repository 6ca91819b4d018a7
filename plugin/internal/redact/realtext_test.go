package redact

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// realTexts are clean texts this machine holds, read at test time: Go's
// own sources (generated tables, assembly, testdata full of hashes and
// keys of tests), the JavaScript npm installs (minified bundles), and
// Python's standard library. The shape stage was tuned on the first two;
// Python's was not looked at while tuning and is reported on its own.
// A root that is missing is skipped.
var realTexts = []struct {
	name  string
	roots []string
	exts  []string
}{
	{"go-src", []string{filepath.Join(runtime.GOROOT(), "src")}, []string{".go", ".s", ".txt", ".json", ".md"}},
	{"node-js", []string{"/usr/lib/node_modules", "/usr/local/lib/node_modules"}, []string{".js", ".mjs", ".cjs", ".json"}},
	{"python-stdlib", []string{"/usr/lib/python3.11", "/usr/lib/python3.12", "/usr/lib/python3.13"}, []string{".py", ".txt", ".json"}},
}

// readTree returns the text files under root with one of exts, up to
// limit bytes in all.
func readTree(root string, exts []string, limit int) []string {
	var out []string
	total := 0
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || total >= limit {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		ok := false
		for _, e := range exts {
			ok = ok || strings.HasSuffix(path, e)
		}
		if !ok {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil || len(b) > 4<<20 {
			return nil
		}
		total += len(b)
		out = append(out, string(b))
		return nil
	})
	return out
}

// TestUnnamedRealText: redactions in real clean text. The shape stage's
// are at most one per 10 MB. The whole pipeline's (sensitive JSON keys,
// every rule, the shape stage) are reported, not held to a bound: code
// assigns variables to names such as password (password = None,
// creds.password), which the key_value rule takes, since a password may
// be any word. A value that is key material under a secret's name
// (shared_secret, "key", *PrivateKeyHex in crypto test vectors: hex or
// base64 of 32 bytes or more) is a secret by every sign the text gives:
// such test vectors are counted apart, not as false positives. Skipped
// when no tree is here.
func TestUnnamedRealText(t *testing.T) {
	if testing.Short() {
		t.Skip("reads ~150 MB")
	}
	r := New()
	total, ours := 0, 0
	for _, rt := range realTexts {
		n, vectors, size, all, allVectors := 0, 0, 0, 0, 0
		byKind := map[string]int{}
		for _, root := range rt.roots {
			for _, f := range readTree(root, rt.exts, 200<<20) {
				size += len(f)
				for _, e := range unnamed(f) {
					if testVector(f, e) {
						vectors++
						continue
					}
					if n++; n <= 20 {
						t.Logf("%s: %s %q after %q", rt.name, e.repl, f[e.start:e.end], f[max(0, e.start-40):e.start])
					}
				}
				spans, _ := r.Spans(f)
				for _, sp := range spans {
					if keyMaterial(f, sp) {
						allVectors++
						continue
					}
					all++
					byKind[sp.Repl]++
				}
			}
		}
		if size == 0 {
			continue
		}
		mb10 := float64(size) / (10 << 20)
		t.Logf("%s: %.1f MB, %d false positives by the shape stage (%.2f per 10 MB); %d secret-shaped test vectors", rt.name, float64(size)/(1<<20), n, float64(n)/mb10, vectors)
		t.Logf("%s: %.1f MB, %d false positives by the whole pipeline (%.2f per 10 MB: %v); %d key-material test vectors", rt.name, float64(size)/(1<<20), all, float64(all)/mb10, byKind, allVectors)
		total += size
		ours += n
	}
	if total == 0 {
		t.Skip("no real text on this machine")
	}
	if per := float64(ours) / (float64(total) / (10 << 20)); per > 1 {
		t.Errorf("%.2f false positives per 10 MB of real text, want at most 1", per)
	}
}

// keyMaterial: a redaction by gitleaks' generic rule or the shape
// stage's credential kind of hex or base64 of 32 bytes or more, under a
// name holding secret or key.
func keyMaterial(f string, sp Span) bool {
	if sp.Repl != "[REDACTED:generic-api-key]" && sp.Repl != "[REDACTED:"+kindCredential+"]" {
		return false
	}
	v := f[sp.Start:sp.End]
	if len(v) < 43 || !isHex(v) && !isBase64(v) {
		return false
	}
	key, _ := keyBefore(f, sp.Start)
	k := strings.ToLower(key)
	return strings.Contains(k, "secret") || strings.Contains(k, "key")
}

func isBase64(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isAlnum(c) && c != '+' && c != '/' && c != '=' {
			return false
		}
	}
	return true
}

// testVector: the edit took a value of hex digits under a name that
// ends in secret or is key.
func testVector(f string, e edit) bool {
	v := f[e.start:e.end]
	if !isHex(v) || e.repl != "[REDACTED:"+kindCredential+"]" {
		return false
	}
	w := wordsBefore(f, e.start)
	if len(w) == 0 {
		return false
	}
	k := strings.ToLower(w[0])
	return strings.HasSuffix(k, "secret") || k == "key"
}

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
	{"python-stdlib (held out)", []string{"/usr/lib/python3.11", "/usr/lib/python3.12", "/usr/lib/python3.13"}, []string{".py", ".txt", ".json"}},
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

// TestUnnamedRealText: the shape stage's redactions in real clean text,
// at most one per 10 MB. A random hex value under a secret's name
// (shared_secret, exporter_secret, "key" in crypto test vectors) is a
// secret by every sign the text gives: such test vectors are counted
// apart, not as false positives. Skipped when no tree is here.
func TestUnnamedRealText(t *testing.T) {
	if testing.Short() {
		t.Skip("reads ~150 MB")
	}
	total, ours := 0, 0
	for _, rt := range realTexts {
		n, vectors, size := 0, 0, 0
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
			}
		}
		if size == 0 {
			continue
		}
		t.Logf("%s: %.1f MB, %d false positives by the shape stage (%.2f per 10 MB); %d secret-shaped test vectors", rt.name, float64(size)/(1<<20), n, float64(n)/(float64(size)/(10<<20)), vectors)
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

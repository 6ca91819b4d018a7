package engine

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestPgpassPasswordRedacted: the store URL carries no password, the
// user's ~/.pgpass does; a Bash `cat` of that file leaves no trace of
// the password (a long one by any 12-byte run, a short one with its user
// in front) in any file under ctxhook's home, and the event was
// captured.
func TestPgpassPasswordRedacted(t *testing.T) {
	for _, tc := range []struct{ name, line, gone string }{
		{"long", "db.example:5432:ctxhook:alice:Pg-Secret-7Kq2Zr9Xb\n", "Secret-7Kq2Z"},
		{"short", "*:*:*:alice:ab12x\n", "alice:ab12x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := home(t)
			e["CTXHOOK_NO_DAEMON"] = "1"
			e["HOME"] = t.TempDir()
			e["CTXHOOK_STORE_URL"] = "postgres://alice@db.example/ctxhook"
			pgpass := filepath.Join(e["HOME"], ".pgpass")
			if err := os.WriteFile(pgpass, []byte("# team store\n"+tc.line), 0o600); err != nil {
				t.Fatal(err)
			}
			in := bashRead(t, "cat ~/.pgpass", "# team store\n"+tc.line+"QZPGPASS\n")
			if _, errs, code := runHook(t, e, "PostToolUse", in); code != 0 {
				t.Fatalf("hook: %d %s", code, errs)
			}
			var all []byte
			filepath.WalkDir(e["CTXHOOK_HOME"], func(path string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					b, _ := os.ReadFile(path)
					all = append(all, b...)
				}
				return nil
			})
			if bytes.Contains(all, []byte(tc.gone)) {
				t.Errorf("a file under the home holds %q", tc.gone)
			}
			if !bytes.Contains(all, []byte("QZPGPASS")) {
				t.Error("the event was not captured")
			}
		})
	}
}

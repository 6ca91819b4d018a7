package redact

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/internal/secretcorpus"
)

// TestRecall: every planted secret kind, and random tokens under
// sensitive keys. Every one must go.
func TestRecall(t *testing.T) {
	c := secretcorpus.Generate(7)
	missed := map[string]int{}
	caught := 0
	for _, p := range c {
		var r *Redactor
		if p.Known {
			r = New(p.Secret)
		} else {
			r = New()
		}
		out, _ := r.String(p.Text)
		if secretcorpus.Leaked(out, p.Secret) {
			missed[p.Kind]++
			if p.Known {
				t.Errorf("known value survived: %q -> %q", p.Text, out)
			}
			continue
		}
		caught++
	}
	if len(c) < 300 || secretcorpus.Kinds() < 40 {
		t.Fatalf("corpus too small: %d secrets, %d kinds", len(c), secretcorpus.Kinds())
	}
	recall := float64(caught) / float64(len(c))
	t.Logf("planted: %d secrets over %d kinds; caught %d (recall %.2f%%); missed by kind: %v", len(c), secretcorpus.Kinds(), caught, 100*recall, missed)
	if caught < len(c) {
		t.Errorf("recall %.2f%% < 100%%", 100*recall)
	}
	miss := 0
	for _, p := range secretcorpus.UnderKeys(10000) {
		if out, _ := New().String(p.Text); secretcorpus.Leaked(out, p.Secret) {
			if miss < 5 {
				t.Errorf("value under a sensitive key survived: %s", out)
			}
			miss++
		}
	}
	t.Logf("sensitive keys: %d of 10000 random tokens survived", miss)
}

// cleanCorpus is at least 1 MB of clean text: Go standard library
// sources (real code, with words like token, key and secret in it) and
// JSON shaped like tool responses (ids, UUIDs, commit hashes, checksums,
// URLs, e-mail addresses, prose), none of it a credential.
func cleanCorpus(t testing.TB) []byte {
	root := runtime.GOROOT()
	var buf bytes.Buffer
	for _, dir := range []string{"sort", "strings", "bufio", "container/list", "text/template/parse", "go/parser",
		"go/scanner", "go/token", "encoding/csv", "unicode/utf8", "path", "math/big", "net/http/cookiejar", "flag", "text/tabwriter"} {
		files, _ := filepath.Glob(filepath.Join(root, "src", dir, "*.go"))
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue // tests plant example credentials on purpose
			}
			if b, err := os.ReadFile(name); err == nil {
				buf.Write(b)
			}
		}
	}
	if buf.Len() < 300<<10 {
		t.Skipf("Go's sources are not at %s", root)
	}
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the build failed after the cache was cleared and the token bucket limiter " +
		"rejected requests while the key rotation job ran for the secret store migration on the api gateway " +
		"with access logs showing session restarts password reset emails and auth callbacks in the new region")
	sentence := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[r.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	for i := 0; buf.Len() < 1700<<10; i++ {
		fmt.Fprintf(&buf, `{"id": "TCK-%d", "uuid": "%s-%s-4%s-a%s-%s", "commit": "%s", "checksum": "sha256:%s",`+
			` "created_at": "2026-11-%02dT%02d:%02d:00Z", "author": {"name": "Dana Kim", "email": "dana.kim%d@example.com"},`+
			` "url": "https://tracker.example.com/browse/TCK-%d?view=full&tab=comments", "title": %q, "body": %q,`+
			` "labels": ["infra", "p%d"], "duration_ms": %d, "retries": %d, "token_count": %d, "max_tokens": 4096}`+"\n",
			i, secretcorpus.RandString(r, "0123456789abcdef", 8), secretcorpus.RandString(r, "0123456789abcdef", 4), secretcorpus.RandString(r, "0123456789abcdef", 3), secretcorpus.RandString(r, "0123456789abcdef", 3), secretcorpus.RandString(r, "0123456789abcdef", 12),
			secretcorpus.RandString(r, "0123456789abcdef", 40), secretcorpus.RandString(r, "0123456789abcdef", 64), 1+i%28, i%24, i%60, i, i, sentence(8), sentence(60),
			i%4, r.IntN(90000), r.IntN(5), r.IntN(100000))
	}
	return buf.Bytes()
}

// TestFalsePositives: redactions per MB of clean text, at most 1.
func TestFalsePositives(t *testing.T) {
	clean := cleanCorpus(t)
	mb := float64(len(clean)) / (1 << 20)
	if mb < 1 {
		t.Fatalf("clean corpus %.2f MB, want at least 1", mb)
	}
	r := New()
	n := 0
	// In 64 KiB pieces, as payloads come.
	for i := 0; i < len(clean); i += 64 << 10 {
		piece := string(clean[i:min(len(clean), i+64<<10)])
		out, m := r.String(piece)
		if m > 0 {
			n += m
			logDiff(t, piece, out)
		}
	}
	t.Logf("false positives: %d in %.2f MB of clean JSON and Go source (%.2f per MB)", n, mb, float64(n)/mb)
	if float64(n)/mb > 1 {
		t.Errorf("%.2f false positives per MB, want at most 1", float64(n)/mb)
	}
}

func logDiff(t *testing.T, in, out string) {
	i := 0
	for i < len(in) && i < len(out) && in[i] == out[i] {
		i++
	}
	t.Logf("redacted near: %q\n  became: %q", in[max(0, i-60):min(len(in), i+60)], out[max(0, i-60):min(len(out), i+60)])
}

// BenchmarkRedactClean64K: 64 KiB of clean payload, Go source and
// response-shaped JSON, natively. host/runner's BenchmarkHandleClean64K
// measures the same inside plugin.wasm.
func BenchmarkRedactClean64K(b *testing.B) {
	clean := cleanCorpus(b)
	for name, off := range map[string]int{"source": 0, "json": len(clean) - 64<<10} {
		b.Run(name, func(b *testing.B) {
			piece := string(clean[off : off+64<<10])
			r := New()
			r.String(piece) // rules compiled
			b.SetBytes(int64(len(piece)))
			for b.Loop() {
				r.String(piece)
			}
		})
	}
}

// TestRecallMore: forty of every kind, with other random values than
// TestRecall's seven: a rule that holds only for some values (an entropy
// bound, a prefix glued to a key, as in PGPASSWORD) shows here.
func TestRecallMore(t *testing.T) {
	missed := 0
	for _, p := range secretcorpus.Generate(40) {
		r := New()
		if p.Known {
			r = New(p.Secret)
		}
		if out, _ := r.String(p.Text); secretcorpus.Leaked(out, p.Secret) {
			if missed < 10 {
				t.Errorf("%s survived: %q", p.Kind, p.Text)
			}
			missed++
		}
	}
	if missed > 0 {
		t.Errorf("%d secrets survived", missed)
	}
}

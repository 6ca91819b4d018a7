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
)

// The redaction corpus: secrets of many kinds planted in the places tool
// responses carry them (JSON fields, header lines, env files, prose,
// URLs), random tokens under sensitive JSON keys, and clean text. Built
// from a fixed seed, so every run sees the same corpus.

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	lowhex = "0123456789abcdef"
	upnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b64    = alnum + "+/"
	urlb64 = alnum + "-_"
)

type kind struct {
	name string
	gen  func(r *rand.Rand) string
	// ctx renders the secret in the places it shows up; %s is the secret.
	ctx []string
	// known: the secret is handed to the redactor as a known value (a
	// relay token, a sensitive environment value).
	known bool
}

func rs(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

func cat(parts ...func(*rand.Rand) string) func(*rand.Rand) string {
	return func(r *rand.Rand) string {
		var s strings.Builder
		for _, p := range parts {
			s.WriteString(p(r))
		}
		return s.String()
	}
}

func lit(s string) func(*rand.Rand) string { return func(*rand.Rand) string { return s } }
func rnd(alphabet string, n int) func(*rand.Rand) string {
	return func(r *rand.Rand) string { return rs(r, alphabet, n) }
}

var (
	inJSON  = `{"result": {"id": 7, "config": {"value": "%s"}, "note": "rotated yesterday"}}`
	inText  = "The deploy log printed %s before it crashed."
	inEnv   = "export TOKEN_VALUE=%s\nexport REGION=eu-west-2"
	inYAML  = "service:\n  credentials: %s\n  replicas: 3"
	anyCtxs = []string{inJSON, inText, inEnv, inYAML}
)

var kinds = []kind{
	{name: "aws-access-key", gen: cat(lit("AKIA"), rnd("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)), ctx: anyCtxs},
	{name: "aws-secret-key", gen: rnd(b64, 40), ctx: []string{`{"aws_secret_access_key": "%s"}`, "aws_secret_access_key = %s", "AWS_SECRET_ACCESS_KEY=%s"}},
	{name: "github-pat", gen: cat(lit("ghp_"), rnd(alnum, 36)), ctx: anyCtxs},
	{name: "github-oauth", gen: cat(lit("gho_"), rnd(alnum, 36)), ctx: anyCtxs},
	{name: "github-app", gen: cat(lit("ghs_"), rnd(alnum, 36)), ctx: anyCtxs},
	{name: "github-fine-grained", gen: cat(lit("github_pat_"), rnd(alnum+"_", 82)), ctx: anyCtxs},
	{name: "gitlab-pat", gen: cat(lit("glpat-"), rnd(urlb64, 20)), ctx: anyCtxs},
	{name: "slack-bot", gen: cat(lit("xoxb-"), rnd("0123456789", 11), lit("-"), rnd("0123456789", 12), lit("-"), rnd(alnum, 24)), ctx: anyCtxs},
	{name: "slack-webhook", gen: cat(lit("https://hooks.slack.com/services/T"), rnd(upnum, 8), lit("/B"), rnd(upnum, 8), lit("/"), rnd(alnum, 24)), ctx: []string{inJSON, inText}},
	{name: "stripe-live", gen: cat(lit("sk_live_"), rnd(alnum, 24)), ctx: anyCtxs},
	{name: "stripe-restricted", gen: cat(lit("rk_live_"), rnd(alnum, 24)), ctx: anyCtxs},
	{name: "openai-project", gen: cat(lit("sk-proj-"), rnd(urlb64, 74), lit("T3BlbkFJ"), rnd(urlb64, 74)), ctx: anyCtxs},
	{name: "anthropic", gen: cat(lit("sk-ant-api03-"), rnd(urlb64, 93), lit("AA")), ctx: anyCtxs},
	{name: "google-api-key", gen: cat(lit("AIza"), rnd(urlb64, 35)), ctx: anyCtxs},
	{name: "jwt", gen: cat(lit("eyJhbGciOiJIUzI1NiJ9.eyJ"), rnd(urlb64, 40), lit("."), rnd(urlb64, 43)), ctx: anyCtxs},
	{name: "pem-rsa", gen: cat(lit("-----BEGIN RSA PRIVATE KEY-----\n"), rnd(b64, 64), lit("\n"), rnd(b64, 64), lit("\n-----END RSA PRIVATE KEY-----")), ctx: []string{"%s", "key file:\n%s\nend"}},
	{name: "pem-openssh", gen: cat(lit("-----BEGIN OPENSSH PRIVATE KEY-----\n"), rnd(b64, 70), lit("\n"), rnd(b64, 70), lit("\n-----END OPENSSH PRIVATE KEY-----")), ctx: []string{"%s"}},
	{name: "npm", gen: cat(lit("npm_"), rnd("abcdefghijklmnopqrstuvwxyz0123456789", 36)), ctx: anyCtxs},
	{name: "pypi", gen: cat(lit("pypi-AgEIcHlwaS5vcmc"), rnd(urlb64, 70)), ctx: anyCtxs},
	{name: "huggingface", gen: cat(lit("hf_"), rnd("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", 34)), ctx: anyCtxs},
	{name: "sendgrid", gen: cat(lit("SG."), rnd(urlb64, 22), lit("."), rnd(urlb64, 43)), ctx: anyCtxs},
	{name: "twilio", gen: cat(lit("SK"), rnd(lowhex, 32)), ctx: anyCtxs},
	{name: "digitalocean", gen: cat(lit("dop_v1_"), rnd(lowhex, 64)), ctx: anyCtxs},
	{name: "shopify", gen: cat(lit("shpat_"), rnd(lowhex, 32)), ctx: anyCtxs},
	{name: "doppler", gen: cat(lit("dp.pt."), rnd(alnum, 43)), ctx: anyCtxs},
	{name: "vault", gen: cat(lit("hvs."), rnd(urlb64, 95)), ctx: anyCtxs},
	{name: "databricks", gen: cat(lit("dapi"), rnd(lowhex, 32)), ctx: anyCtxs},
	{name: "linear", gen: cat(lit("lin_api_"), rnd(alnum, 40)), ctx: anyCtxs},
	{name: "postman", gen: cat(lit("PMAK-"), rnd(lowhex, 24), lit("-"), rnd(lowhex, 34)), ctx: anyCtxs},
	{name: "pulumi", gen: cat(lit("pul-"), rnd(lowhex, 40)), ctx: anyCtxs},
	{name: "age", gen: cat(lit("AGE-SECRET-KEY-1"), rnd("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)), ctx: anyCtxs},
	{name: "grafana-sa", gen: cat(lit("glsa_"), rnd(alnum, 32), lit("_"), rnd(lowhex, 8)), ctx: anyCtxs},
	{name: "sentry-user", gen: cat(lit("sntryu_"), rnd(lowhex, 64)), ctx: anyCtxs},
	{name: "heroku", gen: cat(lit("HRKU-AA"), rnd(urlb64, 58)), ctx: anyCtxs},
	{name: "dynatrace", gen: cat(lit("dt0c01."), rnd(upnum, 24), lit("."), rnd(upnum, 64)), ctx: anyCtxs},
	{name: "planetscale", gen: cat(lit("pscale_pw_"), rnd(alnum, 43)), ctx: anyCtxs},
	{name: "bearer-header", gen: rnd(urlb64, 48), ctx: []string{"Authorization: Bearer %s", `{"headers": {"Authorization": "Bearer %s"}}`, "curl -H 'Authorization: Bearer %s' https://api.example.com"}},
	{name: "basic-header", gen: cat(rnd(b64, 28), lit("==")), ctx: []string{"Authorization: Basic %s", `{"Authorization": "Basic %s"}`}},
	{name: "cookie", gen: rnd(alnum, 32), ctx: []string{"Cookie: session=%s; theme=dark", "Set-Cookie: sid=%s; Path=/; HttpOnly", `{"cookie": "sid=%s"}`}},
	{name: "url-userinfo", gen: rnd(alnum, 16), ctx: []string{"postgres://admin:%s@db.internal:5432/app", `{"dsn": "mysql://root:%s@10.0.0.5/prod"}`, "git clone https://deploy:%s@git.example.com/repo.git"}},
	{name: "mcp-session-id", gen: func(r *rand.Rand) string {
		return rs(r, lowhex, 8) + "-" + rs(r, lowhex, 4) + "-4" + rs(r, lowhex, 3) + "-a" + rs(r, lowhex, 3) + "-" + rs(r, lowhex, 12)
	}, ctx: []string{"Mcp-Session-Id: %s", `{"headers": {"mcp-session-id": "%s"}}`}},
	{name: "json-session-token", gen: rnd(alnum, 40), ctx: []string{`{"session_token": "%s", "step": 2}`, `{"data": "{\"session_token\": \"%s\"}"}`}},
	{name: "json-client-secret", gen: rnd(urlb64, 32), ctx: []string{`{"client_id": "app", "client_secret": "%s"}`}},
	{name: "json-api-key", gen: rnd(alnum, 32), ctx: []string{`{"apiKey": "%s"}`, `{"x-api-key": "%s"}`}},
	{name: "low-entropy-password", gen: func(r *rand.Rand) string { return "hunter" + rs(r, "0123456789", 4) + "hunter" }, ctx: []string{"password=%s", `{"db_password": "%s"}`, "PGPASSWORD: %s", "passwd: %s"}},
	{name: "env-db-password", gen: rnd(alnum, 20), ctx: []string{"DB_PASSWORD=%s", "export SECRET_KEY=%s"}},
	{name: "relay-token", gen: cat(lit("tok_"), rnd(alnum, 60)), ctx: []string{"%s", `{"echo": "%s"}`, "next step uses %s"}, known: true},
	{name: "env-value", gen: rnd(alnum, 24), ctx: []string{"the build printed %s", `{"x": "%s"}`}, known: true},
}

type planted struct {
	kind, secret, text string
	known              bool
}

func corpus(perKind int) []planted {
	r := rand.New(rand.NewPCG(42, 7))
	var out []planted
	for _, k := range kinds {
		for i := 0; i < perKind; i++ {
			sec := k.gen(r)
			ctx := k.ctx[r.IntN(len(k.ctx))]
			out = append(out, planted{kind: k.name, secret: sec, text: fmt.Sprintf(ctx, sec), known: k.known})
		}
	}
	return out
}

// leaked reports whether any 10-byte stretch of secret survives in out:
// a secret redacted only in part is a leak.
func leaked(out, secret string) bool {
	const w = 10
	if len(secret) <= w {
		return strings.Contains(out, secret)
	}
	for i := 0; i+w <= len(secret); i++ {
		if strings.Contains(out, secret[i:i+w]) {
			return true
		}
	}
	return false
}

// sensitiveKeys are JSON keys a sensitive value may sit under.
var sensitiveKeys = []string{"password", "db_password", "passwd", "secret", "client_secret", "token", "session_token",
	"access_token", "refresh_token", "api_key", "apiKey", "x-api-key", "private_key", "authorization", "cookie",
	"credentials", "session_id", "sessionId", "AWS_SECRET_ACCESS_KEY", "github_token", "auth_token"}

// TestRecall: every planted secret kind, and random tokens under
// sensitive keys. Known values and sensitive keys must all go; overall
// at least 99%.
func TestRecall(t *testing.T) {
	c := corpus(7)
	kindsSeen := map[string]bool{}
	missed := map[string]int{}
	caught := 0
	for _, p := range c {
		kindsSeen[p.kind] = true
		var r *Redactor
		if p.known {
			r = New(p.secret)
		} else {
			r = New()
		}
		out, _ := r.String(p.text)
		if leaked(out, p.secret) {
			missed[p.kind]++
			if p.known {
				t.Errorf("known value survived: %q -> %q", p.text, out)
			}
			continue
		}
		caught++
	}
	if len(c) < 300 || len(kindsSeen) < 40 {
		t.Fatalf("corpus too small: %d secrets, %d kinds", len(c), len(kindsSeen))
	}
	recall := float64(caught) / float64(len(c))
	t.Logf("planted: %d secrets over %d kinds; caught %d (recall %.2f%%); missed by kind: %v", len(c), len(kindsSeen), caught, 100*recall, missed)
	if recall < 0.99 {
		t.Errorf("recall %.2f%% < 99%%", 100*recall)
	}

	// 10,000 random tokens under sensitive keys, in JSON and nested JSON.
	r := rand.New(rand.NewPCG(9, 9))
	miss := 0
	for i := 0; i < 10000; i++ {
		tok := rs(r, alnum+"-_.", 8+r.IntN(56))
		key := sensitiveKeys[r.IntN(len(sensitiveKeys))]
		var text string
		switch i % 3 {
		case 0:
			text = fmt.Sprintf(`{"id": %d, %q: %q, "ok": true}`, i, key, tok)
		case 1:
			text = fmt.Sprintf(`{"content": [{"type": "text", "text": "{\"%s\": \"%s\"}"}]}`, key, tok)
		default:
			text = fmt.Sprintf(`{"nested": {"deeper": {%q: %q}}}`, key, tok)
		}
		if out, _ := New().String(text); leaked(out, tok) {
			if miss < 5 {
				t.Errorf("value under %q survived: %s", key, out)
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
			i, rs(r, lowhex, 8), rs(r, lowhex, 4), rs(r, lowhex, 3), rs(r, lowhex, 3), rs(r, lowhex, 12),
			rs(r, lowhex, 40), rs(r, lowhex, 64), 1+i%28, i%24, i%60, i, i, sentence(8), sentence(60),
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

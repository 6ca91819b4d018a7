// Package secretcorpus plants secrets of many kinds in the places tool
// responses carry them (JSON fields, header lines, env files, prose,
// URLs), and random tokens under sensitive JSON keys, from fixed seeds.
// The redactor's recall tests and the store's no-secret-at-rest test
// share it.
package secretcorpus

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

const (
	Alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	lowhex = "0123456789abcdef"
	upnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b64    = Alnum + "+/"
	urlb64 = Alnum + "-_"
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

// RandString draws n bytes of alphabet.
func RandString(r *rand.Rand, alphabet string, n int) string {
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
	return func(r *rand.Rand) string { return RandString(r, alphabet, n) }
}

var (
	inJSON = `{"result": {"id": 7, "config": {"value": "%s"}, "note": "rotated yesterday"}}`
	inText = "The deploy log printed %s before it crashed."
	inEnv  = "export TOKEN_VALUE=%s\nexport REGION=eu-west-2"
	inYAML = "service:\n  credentials: %s\n  replicas: 3"
	// JSON held in a JSON string: structuredContent as Claude Code passes
	// it, a text block holding a document.
	inNested = `{"content": [{"type": "text", "text": "{\"config\": {\"value\": \"%s\"}, \"ok\": true}"}]}`
	// ...and that again, as a tool's arguments are logged.
	inNested2 = `{"note": "{\"content\": [{\"type\": \"text\", \"text\": \"{\\\"value\\\": \\\"%s\\\"}\"}]}"}`
	anyCtxs   = []string{inJSON, inText, inEnv, inYAML, inNested, inNested2}
)

var kinds = []kind{
	{name: "aws-access-key", gen: cat(lit("AKIA"), rnd("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)), ctx: anyCtxs},
	{name: "aws-secret-key", gen: rnd(b64, 40), ctx: []string{`{"aws_secret_access_key": "%s"}`, "aws_secret_access_key = %s", "AWS_SECRET_ACCESS_KEY=%s"}},
	{name: "github-pat", gen: cat(lit("ghp_"), rnd(Alnum, 36)), ctx: anyCtxs},
	{name: "github-oauth", gen: cat(lit("gho_"), rnd(Alnum, 36)), ctx: anyCtxs},
	{name: "github-app", gen: cat(lit("ghs_"), rnd(Alnum, 36)), ctx: anyCtxs},
	{name: "github-fine-grained", gen: cat(lit("github_pat_"), rnd(Alnum+"_", 82)), ctx: anyCtxs},
	{name: "gitlab-pat", gen: cat(lit("glpat-"), rnd(urlb64, 20)), ctx: anyCtxs},
	{name: "slack-bot", gen: cat(lit("xoxb-"), rnd("0123456789", 11), lit("-"), rnd("0123456789", 12), lit("-"), rnd(Alnum, 24)), ctx: anyCtxs},
	{name: "slack-webhook", gen: cat(lit("https://hooks.slack.com/services/T"), rnd(upnum, 8), lit("/B"), rnd(upnum, 8), lit("/"), rnd(Alnum, 24)), ctx: []string{inJSON, inText}},
	{name: "stripe-live", gen: cat(lit("sk_live_"), rnd(Alnum, 24)), ctx: anyCtxs},
	{name: "stripe-restricted", gen: cat(lit("rk_live_"), rnd(Alnum, 24)), ctx: anyCtxs},
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
	{name: "doppler", gen: cat(lit("dp.pt."), rnd(Alnum, 43)), ctx: anyCtxs},
	{name: "vault", gen: cat(lit("hvs."), rnd(urlb64, 95)), ctx: anyCtxs},
	{name: "databricks", gen: cat(lit("dapi"), rnd(lowhex, 32)), ctx: anyCtxs},
	{name: "linear", gen: cat(lit("lin_api_"), rnd(Alnum, 40)), ctx: anyCtxs},
	{name: "postman", gen: cat(lit("PMAK-"), rnd(lowhex, 24), lit("-"), rnd(lowhex, 34)), ctx: anyCtxs},
	{name: "pulumi", gen: cat(lit("pul-"), rnd(lowhex, 40)), ctx: anyCtxs},
	{name: "age", gen: cat(lit("AGE-SECRET-KEY-1"), rnd("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)), ctx: anyCtxs},
	{name: "grafana-sa", gen: cat(lit("glsa_"), rnd(Alnum, 32), lit("_"), rnd(lowhex, 8)), ctx: anyCtxs},
	{name: "sentry-user", gen: cat(lit("sntryu_"), rnd(lowhex, 64)), ctx: anyCtxs},
	{name: "heroku", gen: cat(lit("HRKU-AA"), rnd(urlb64, 58)), ctx: anyCtxs},
	{name: "dynatrace", gen: cat(lit("dt0c01."), rnd(upnum, 24), lit("."), rnd(upnum, 64)), ctx: anyCtxs},
	{name: "planetscale", gen: cat(lit("pscale_pw_"), rnd(Alnum, 43)), ctx: anyCtxs},
	{name: "bearer-header", gen: rnd(urlb64, 48), ctx: []string{"Authorization: Bearer %s", `{"headers": {"Authorization": "Bearer %s"}}`, "curl -H 'Authorization: Bearer %s' https://api.example.com"}},
	{name: "basic-header", gen: cat(rnd(b64, 28), lit("==")), ctx: []string{"Authorization: Basic %s", `{"Authorization": "Basic %s"}`}},
	{name: "cookie", gen: rnd(Alnum, 32), ctx: []string{"Cookie: session=%s; theme=dark", "Set-Cookie: sid=%s; Path=/; HttpOnly", `{"cookie": "sid=%s"}`}},
	{name: "url-userinfo", gen: rnd(Alnum, 16), ctx: []string{"postgres://admin:%s@db.internal:5432/app", `{"dsn": "mysql://root:%s@10.0.0.5/prod"}`, "git clone https://deploy:%s@git.example.com/repo.git"}},
	{name: "mcp-session-id", gen: func(r *rand.Rand) string {
		return RandString(r, lowhex, 8) + "-" + RandString(r, lowhex, 4) + "-4" + RandString(r, lowhex, 3) + "-a" + RandString(r, lowhex, 3) + "-" + RandString(r, lowhex, 12)
	}, ctx: []string{"Mcp-Session-Id: %s", `{"headers": {"mcp-session-id": "%s"}}`}},
	{name: "json-session-token", gen: rnd(Alnum, 40), ctx: []string{`{"session_token": "%s", "step": 2}`, `{"data": "{\"session_token\": \"%s\"}"}`}},
	{name: "json-client-secret", gen: rnd(urlb64, 32), ctx: []string{`{"client_id": "app", "client_secret": "%s"}`}},
	{name: "json-api-key", gen: rnd(Alnum, 32), ctx: []string{`{"apiKey": "%s"}`, `{"x-api-key": "%s"}`}},
	{name: "low-entropy-password", gen: func(r *rand.Rand) string { return "hunter" + RandString(r, "0123456789", 4) + "hunter" }, ctx: []string{"password=%s", `{"db_password": "%s"}`, "PGPASSWORD: %s", "passwd: %s"}},
	{name: "env-db-password", gen: rnd(Alnum, 20), ctx: []string{"DB_PASSWORD=%s", "export SECRET_KEY=%s"}},
	{name: "cli-flag", gen: func(r *rand.Rand) string { return "hunter" + RandString(r, "0123456789", 4) }, ctx: []string{"mysql -u root --password %s prod", `{"command": "deploy --api-key %s --region eu"}`, "vault login --token '%s'"}},
	{name: "relay-token", gen: cat(lit("tok_"), rnd(Alnum, 60)), ctx: []string{"%s", `{"echo": "%s"}`, "next step uses %s"}, known: true},
	{name: "env-value", gen: rnd(Alnum, 24), ctx: []string{"the build printed %s", `{"x": "%s"}`}, known: true},
	// A token with a distinctive prefix is a secret wherever it stands,
	// in bare prose too, with no assignment or service name near it.
	{name: "atlassian-prose", gen: cat(lit("ATATT3"), rnd(urlb64, 177), lit("="), rnd("0123456789ABCDEF", 8)), ctx: proseCtxs},
	{name: "mailgun-prose", gen: cat(lit("key-"), rnd(lowhex, 32)), ctx: proseCtxs},
	{name: "discord-bot-prose", gen: func(r *rand.Rand) string {
		id := fmt.Sprint(1 + r.IntN(9))
		for len(id) < 17+r.IntN(3) {
			id += fmt.Sprint(r.IntN(10))
		}
		return strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(id)), "=") + "." + RandString(r, urlb64, 6) + "." + RandString(r, urlb64, 38)
	}, ctx: proseCtxs},
	// Keys a JSON scanner must know: pass on its own or after a
	// separator, passphrase, and keys written with \u escapes.
	{name: "json-pass-key", gen: rnd(Alnum, 20), ctx: []string{`{"pass": "%s"}`, `{"db_pass": "%s", "db_user": "app"}`, `{"smtpPass": "%s"}`,
		`{"passphrase": "%s"}`, `{"data": "{\"SMTP_PASS\": \"%s\"}"}`}},
	{name: "json-escaped-key", gen: rnd(Alnum, 20), ctx: []string{`{"\u0070assword": "%s"}`, `{"api\u005Fkey": "%s"}`, `{"to\u006ben": "%s"}`,
		`{"data": "{\"\\u0070assword\": \"%s\"}"}`}},
	// ...and in an assignment.
	{name: "env-pass", gen: rnd(Alnum, 20), ctx: []string{"DB_PASS=%s", "smtp.pass: %s", "export GPG_PASSPHRASE=%s", "sshpass --pass %s host"}},
}

// proseCtxs are bare prose: no key, no assignment.
var proseCtxs = []string{inText, "Use %s for the deploy.", "token %s", "(%s)", "%s"}

// Planted is one secret in the text it was planted in. Known secrets
// are handed to the redactor as known values (relay tokens, sensitive
// environment values).
type Planted struct {
	Kind, Secret, Text string
	Known              bool
}

// Generate plants perKind secrets of every kind, from a fixed seed.
func Generate(perKind int) []Planted {
	r := rand.New(rand.NewPCG(42, 7))
	var out []Planted
	for _, k := range kinds {
		for i := 0; i < perKind; i++ {
			sec := k.gen(r)
			ctx := k.ctx[r.IntN(len(k.ctx))]
			out = append(out, Planted{Kind: k.name, Secret: sec, Text: fmt.Sprintf(ctx, sec), Known: k.known})
		}
	}
	return out
}

// Leaked reports whether any 10-byte stretch of secret survives in out:
// a secret redacted only in part is a leak.
func Leaked(out, secret string) bool {
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

// SensitiveKeys are JSON keys a sensitive value may sit under.
var SensitiveKeys = []string{"password", "db_password", "passwd", "secret", "client_secret", "token", "session_token",
	"access_token", "refresh_token", "api_key", "apiKey", "x-api-key", "private_key", "authorization", "cookie",
	"credentials", "session_id", "sessionId", "AWS_SECRET_ACCESS_KEY", "github_token", "auth_token",
	"pass", "db_pass", "passphrase"}

// UnderKeys returns n random tokens, each under a sensitive key in JSON,
// nested, in JSON held in a string, or in JSON held in a string held in
// a string, from a fixed seed.
func UnderKeys(n int) []Planted {
	r := rand.New(rand.NewPCG(9, 9))
	out := make([]Planted, 0, n)
	for i := 0; i < n; i++ {
		tok := RandString(r, Alnum+"-_.", 8+r.IntN(56))
		key := SensitiveKeys[r.IntN(len(SensitiveKeys))]
		var text string
		switch i % 4 {
		case 0:
			text = fmt.Sprintf(`{"id": %d, %q: %q, "ok": true}`, i, key, tok)
		case 1:
			text = fmt.Sprintf(`{"content": [{"type": "text", "text": "{\"%s\": \"%s\"}"}]}`, key, tok)
		case 2:
			text = fmt.Sprintf(`{"nested": {"deeper": {%q: %q}}}`, key, tok)
		default: // two levels of JSON in strings
			text = fmt.Sprintf(`{"note": "{\"text\": \"{\\\"%s\\\": \\\"%s\\\"}\"}"}`, key, tok)
		}
		out = append(out, Planted{Kind: "under-key:" + key, Secret: tok, Text: text})
	}
	return out
}

// Kinds counts the kinds Generate plants.
func Kinds() int { return len(kinds) }

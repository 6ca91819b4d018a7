package heldoutcorpus

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Clean returns documents of clean text, about size bytes in all, from a
// seed: Go, JavaScript and Python source, package manifests, lockfile
// lines with integrity hashes, tickets and incident notes, log lines and
// base64 images. None holds a credential, so every redaction in it is a
// false positive.
func Clean(size int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 0xc1ea2))
	gens := []func(*rand.Rand, *strings.Builder){cleanGo, cleanJS, cleanPython, cleanManifest, cleanLock, cleanTicket, cleanLog, cleanImage}
	var out []string
	total := 0
	for i := 0; total < size; i++ {
		var b strings.Builder
		gens[i%len(gens)](r, &b)
		out = append(out, b.String())
		total += b.Len()
	}
	return out
}

var (
	nouns = strings.Fields("user session order invoice account token cache config client request response payload key " +
		"secret password credential webhook tenant project signature nonce cursor batch shard replica lease")
	verbs  = strings.Fields("load fetch validate rotate refresh parse build resolve sync verify encode decode issue revoke store")
	pkgs   = strings.Fields("react lodash express axios zod next vite typescript eslint prettier jest webpack dotenv jsonwebtoken bcrypt pg redis")
	people = split("Dana Kim|Ravi Patel|Ana Souza|Lena Fischer|Tomás Ruiz|Mei Chen|Sam Okafor")
	prose  = strings.Fields("the rollout paused after the canary saw elevated 5xx rates while the token refresh job retried " +
		"against the auth service and the secret rotation finished late so the cache kept stale keys for an hour " +
		"we rolled back the deploy cleared the session store and asked the vendor to check their signing keys " +
		"customers saw login errors password resets queued and the webhook signature checks failed for a while")
)

func camel(a, b string) string { return a + strings.ToUpper(b[:1]) + b[1:] }

func words(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = prose[r.IntN(len(prose))]
	}
	return strings.Join(w, " ")
}

func cleanGo(r *rand.Rand, b *strings.Builder) {
	n, v := pick(r, nouns...), pick(r, verbs...)
	fn := camel(v, n)
	fmt.Fprintf(b, "package %s\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n\t\"os\"\n)\n\n", n)
	fmt.Fprintf(b, "// %s %ss the %s named by key: %s.\nfunc %s(ctx context.Context, store Store, key string) (*%s, error) {\n", strings.ToUpper(fn[:1])+fn[1:], v, n, words(r, 8), fn, strings.ToUpper(n[:1])+n[1:])
	fmt.Fprintf(b, "\tsecret := os.Getenv(\"%s_SECRET\")\n\tif secret == \"\" {\n\t\treturn nil, errors.New(\"%s: no secret configured\")\n\t}\n", strings.ToUpper(n), n)
	fmt.Fprintf(b, "\ttoken, err := store.Get(ctx, key)\n\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"%s %%q: %%w\", key, err)\n\t}\n", fn)
	fmt.Fprintf(b, "\tpassword := cfg.Password\n\tapiKey := cfg.APIKey\n\treturn &%s{Token: token, Password: password, APIKey: apiKey, TTL: %d}, nil\n}\n\n", strings.ToUpper(n[:1])+n[1:], 60*(1+r.IntN(60)))
	fmt.Fprintf(b, "func Test%s(t *testing.T) {\n\tfor _, tc := range []struct{ name, key string }{{\"empty\", \"\"}, {\"plain\", \"%s-%d\"}} {\n\t\tt.Run(tc.name, func(t *testing.T) { _, _ = %s(context.Background(), memStore{}, tc.key) })\n\t}\n}\n",
		strings.ToUpper(fn[:1])+fn[1:], n, r.IntN(1000), fn)
}

func cleanJS(r *rand.Rand, b *strings.Builder) {
	n, v := pick(r, nouns...), pick(r, verbs...)
	fmt.Fprintf(b, "import { %s } from './%s.js';\nimport %s from '%s';\n\n", camel(v, n), n, pick(r, pkgs...), pick(r, pkgs...))
	fmt.Fprintf(b, "export async function %s(req, res) {\n  const { token, password } = req.body;\n  const apiKey = process.env.%s_API_KEY;\n", camel("handle", n), strings.ToUpper(n))
	fmt.Fprintf(b, "  if (!token) return res.status(401).json({ error: 'missing token' });\n  const result = await %s({ token, password, apiKey, retries: %d });\n", camel(v, n), 1+r.IntN(5))
	fmt.Fprintf(b, "  // %s\n  return res.json({ ok: true, id: result.id, secret: undefined });\n}\n\n", words(r, 10))
	fmt.Fprintf(b, "const config = {\n  secretName: '%s-%s',\n  tokenTTL: %d,\n  keyPrefix: '%s:',\n  passwordMinLength: %d,\n};\nexport default config;\n", n, pick(r, "prod", "staging"), 300*(1+r.IntN(12)), n, 8+r.IntN(8))
}

func cleanPython(r *rand.Rand, b *strings.Builder) {
	n, v := pick(r, nouns...), pick(r, verbs...)
	cls := strings.ToUpper(n[:1]) + n[1:] + "Service"
	fmt.Fprintf(b, "class %s:\n    \"\"\"%s.\"\"\"\n\n    def __init__(self, client, secret_name: str, token_ttl: int = %d):\n", cls, words(r, 9), 60*(1+r.IntN(30)))
	fmt.Fprintf(b, "        self.client = client\n        self.secret_name = secret_name\n        self.token_ttl = token_ttl\n        self.api_key = os.environ[\"%s_API_KEY\"]\n\n", strings.ToUpper(n))
	fmt.Fprintf(b, "    def %s_%s(self, key: str) -> dict:\n        password = self.client.get_secret(self.secret_name)\n        token = self.client.issue(key, ttl=self.token_ttl)\n", v, n)
	fmt.Fprintf(b, "        logger.info(\"%s %%s for %%s\", key, self.secret_name)\n        return {\"token\": token, \"password\": password is not None}\n\n", v)
}

func cleanManifest(r *rand.Rand, b *strings.Builder) {
	fmt.Fprintf(b, "{\n  \"name\": \"@acme/%s-%s\",\n  \"version\": \"%s\",\n  \"private\": true,\n  \"scripts\": {\"build\": \"tsc -p .\", \"test\": \"jest --coverage\"},\n  \"dependencies\": {\n", pick(r, nouns...), pick(r, "api", "web", "worker"), fmt.Sprintf("%d.%d.%d", r.IntN(5), r.IntN(30), r.IntN(20)))
	for i, p := range pickN(r, pkgs, 6) {
		sep := ","
		if i == 5 {
			sep = ""
		}
		fmt.Fprintf(b, "    %q: \"^%d.%d.%d\"%s\n", p, 1+r.IntN(20), r.IntN(30), r.IntN(20), sep)
	}
	fmt.Fprintf(b, "  }\n}\n\nmodule github.com/acme/%s\n\ngo 1.26\n\nrequire (\n\tgithub.com/google/uuid v1.6.0\n\tgolang.org/x/crypto v0.%d.0\n)\n\n", pick(r, nouns...), 30+r.IntN(20))
	fmt.Fprintf(b, "requests==2.32.%d \\\n    --hash=sha256:%s\ncryptography==44.0.%d \\\n    --hash=sha256:%s\n\n", r.IntN(5), rs(r, lowhex, 64), r.IntN(5), rs(r, lowhex, 64))
	fmt.Fprintf(b, "[package]\nname = \"%s-%s\"\nversion = \"0.%d.%d\"\nedition = \"2021\"\n\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\nring = \"0.17\"\n", pick(r, nouns...), pick(r, verbs...), r.IntN(20), r.IntN(10))
}

func cleanLock(r *rand.Rand, b *strings.Builder) {
	for i := 0; i < 8; i++ {
		p, ver := pick(r, pkgs...), fmt.Sprintf("%d.%d.%d", 1+r.IntN(20), r.IntN(30), r.IntN(20))
		switch r.IntN(5) {
		case 0:
			fmt.Fprintf(b, "    \"node_modules/%s\": {\n      \"version\": \"%s\",\n      \"resolved\": \"https://registry.npmjs.org/%s/-/%s-%s.tgz\",\n      \"integrity\": \"sha512-%s\",\n      \"license\": \"MIT\"\n    },\n", p, ver, p, p, ver, b64Of(r, 64))
		case 1:
			fmt.Fprintf(b, "%s@^%s:\n  version \"%s\"\n  resolved \"https://registry.yarnpkg.com/%s/-/%s-%s.tgz#%s\"\n  integrity sha512-%s\n\n", p, ver, ver, p, p, ver, rs(r, lowhex, 40), b64Of(r, 64))
		case 2:
			fmt.Fprintf(b, "  /%s@%s:\n    resolution: {integrity: sha512-%s}\n    engines: {node: '>=18'}\n", p, ver, b64Of(r, 64))
		case 3:
			fmt.Fprintf(b, "github.com/acme/%s v%s h1:%s\ngithub.com/acme/%s v%s/go.mod h1:%s\n", p, ver, b64Of(r, 32), p, ver, b64Of(r, 32))
		default:
			fmt.Fprintf(b, "[[package]]\nname = \"%s\"\nversion = \"%s\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"%s\"\n\n", p, ver, rs(r, lowhex, 64))
		}
	}
}

func cleanTicket(r *rand.Rand, b *strings.Builder) {
	key := fmt.Sprintf("%s-%d", pick(r, "OPS", "SEC", "PLAT", "INC"), 100+r.IntN(9900))
	fmt.Fprintf(b, "## %s: %s\n\nReporter: %s\nSeverity: SEV%d\nStarted: 2026-11-%02dT%02d:%02d:00Z\n\n", key, words(r, 6), pick(r, people...), 1+r.IntN(4), 1+r.IntN(28), r.IntN(24), r.IntN(60))
	fmt.Fprintf(b, "Summary: %s.\n\nTimeline:\n", words(r, 30))
	for i := 0; i < 4; i++ {
		fmt.Fprintf(b, "- %02d:%02d %s (commit %s, pod %s).\n", r.IntN(24), r.IntN(60), words(r, 12), rs(r, lowhex, 7), podName(r))
	}
	fmt.Fprintf(b, "\nAction items: rotate the API key for the payments vendor, move the webhook secret to the vault, add an alert on token refresh failures. Trace %s, request %s.\n\n", rs(r, lowhex, 32), uuidHex(r, '4'))
}

func cleanLog(r *rand.Rand, b *strings.Builder) {
	for i := 0; i < 14; i++ {
		ts := fmt.Sprintf("2026-11-%02dT%02d:%02d:%02d.%03dZ", 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1000))
		switch r.IntN(5) {
		case 0:
			fmt.Fprintf(b, "10.0.%d.%d - - [%s] \"GET /api/v2/%ss/%s?page=%d HTTP/1.1\" 200 %d \"-\" \"Mozilla/5.0\" rt=%d.%03d\n", r.IntN(255), r.IntN(255), ts, pick(r, nouns...), uuidHex(r, '4'), r.IntN(9), r.IntN(99999), r.IntN(2), r.IntN(1000))
		case 1:
			fmt.Fprintf(b, `{"ts": "%s", "level": "info", "msg": "%s", "trace_id": "%s", "span_id": "%s", "user_id": "%s"}`+"\n", ts, words(r, 5), rs(r, lowhex, 32), rs(r, lowhex, 16), uuidV7(r))
		case 2:
			fmt.Fprintf(b, "%s WARN %s refresh failed for %s (attempt %d): upstream returned 503; next retry in %ds\n", ts, pick(r, "token-broker", "secret-sync", "key-rotator"), podName(r), 1+r.IntN(5), 1+r.IntN(60))
		case 3:
			fmt.Fprintf(b, "%s Normal Pulled pod/%s Successfully pulled image \"registry.example.com/api@sha256:%s\" in %dms\n", ts, podName(r), rs(r, lowhex, 64), r.IntN(9000))
		default:
			fmt.Fprintf(b, "%s INFO deploy %s by %s: %d files changed, monitor %d ok\n", ts, rs(r, lowhex, 12), pick(r, "ci", "release-bot"), r.IntN(90), 10_000_000+r.IntN(9_000_000))
		}
	}
}

func cleanImage(r *rand.Rand, b *strings.Builder) {
	raw := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), randBytes(r, 800+r.IntN(3000))...)
	enc := base64.StdEncoding.EncodeToString(raw)
	switch r.IntN(3) {
	case 0:
		fmt.Fprintf(b, "![screenshot of the %s page](data:image/png;base64,%s)\n", pick(r, nouns...), enc)
	case 1:
		fmt.Fprintf(b, ".icon-%s { background-image: url(data:image/png;base64,%s); }\n", pick(r, nouns...), enc)
	default:
		fmt.Fprintf(b, `{"content": [{"type": "image", "mimeType": "image/png", "data": "%s"}, {"type": "text", "text": "screenshot of the %s settings"}]}`+"\n", enc, pick(r, nouns...))
	}
}

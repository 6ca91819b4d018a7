package freshcorpus

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Category is one family of clean text: identifiers and public material
// that look like secrets but are not. Decided marks a category whose
// cleanliness is a judgement call (see the package comment).
type Category struct {
	Name    string
	Decided bool
	Gen     func(*rand.Rand) string
}

func sri(r *rand.Rand, alg string, n int) string {
	return alg + "-" + base64.StdEncoding.EncodeToString(randBytes(r, n))
}

var pkgNames = split("react|lodash|left-pad|express|@babel/core|@types/node|typescript|esbuild|vite|zod|chalk|commander|semver|debug|ms|tslib|rxjs|axios|uuid|yaml")
var words = split("the|service|request|token|cache|refresh|user|session|build|deploy|queue|worker|retry|timeout|config|cluster|node|pod|error|handler|secret|key|password|rotate|expires|monthly|header|api|client")

func sentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.IntN(len(words))]
	}
	return strings.Join(w, " ")
}

func ident(r *rand.Rand) string {
	parts := split("access|token|secret|key|provider|manager|factory|handler|internal|instance|react|fiber|password|credential|auth|resolver|cache|default|value|config")
	n := 2 + r.IntN(4)
	var b strings.Builder
	for i := 0; i < n; i++ {
		p := parts[r.IntN(len(parts))]
		if i > 0 {
			p = strings.ToUpper(p[:1]) + p[1:]
		}
		b.WriteString(p)
	}
	return b.String()
}

func pemLines(r *rand.Rand, prefix string, n int) string {
	s := prefix + base64.StdEncoding.EncodeToString(randBytes(r, n))
	var b strings.Builder
	for i := 0; i < len(s); i += 64 {
		b.WriteString(s[i:min(i+64, len(s))] + "\n")
	}
	return b.String()
}

// Categories lists the clean corpus' categories.
func Categories() []Category {
	return []Category{
		{Name: "lockfile-integrity", Gen: func(r *rand.Rand) string {
			p := pkgNames[r.IntN(len(pkgNames))]
			return fmt.Sprintf("    \"node_modules/%s\": {\n      \"version\": \"%d.%d.%d\",\n      \"resolved\": \"https://registry.npmjs.org/%s/-/%s-%d.%d.%d.tgz\",\n      \"integrity\": \"%s\",\n      \"dev\": true\n    },\n", p, r.IntN(20), r.IntN(30), r.IntN(10), p, p, r.IntN(20), r.IntN(30), r.IntN(10), sri(r, "sha512", 64))
		}},
		{Name: "yarn-lock", Gen: func(r *rand.Rand) string {
			p := pkgNames[r.IntN(len(pkgNames))]
			return fmt.Sprintf("%s@^%d.0.0:\n  version \"%d.4.1\"\n  resolved \"https://registry.yarnpkg.com/%s/-/%s-%d.4.1.tgz#%s\"\n  integrity %s\n\n", p, r.IntN(9), r.IntN(9), p, p, r.IntN(9), rs(r, lowhex, 40), sri(r, "sha512", 64))
		}},
		{Name: "sri-attributes", Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("<script src=\"https://cdn.jsdelivr.net/npm/%s@%d/dist/index.min.js\" integrity=\"%s\" crossorigin=\"anonymous\"></script>\n<link rel=\"stylesheet\" href=\"/app.%s.css\" integrity=\"%s\">\n", pkgNames[r.IntN(len(pkgNames))], r.IntN(9), sri(r, "sha384", 48), rs(r, lowhex, 8), sri(r, "sha256", 32))
		}},
		{Name: "docker-digests", Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("image: ghcr.io/acme/api@sha256:%s\n$ docker pull nginx:1.27\nDigest: sha256:%s\nStatus: Downloaded newer image for nginx:1.27\n%s: Pull complete\n", rs(r, lowhex, 64), rs(r, lowhex, 64), rs(r, lowhex, 12))
		}},
		{Name: "git-shas", Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("Fixed in %s (cherry-picked from %s). Bisect says %s introduced the token refresh bug; see commit %s.\n%s Merge pull request #%d from acme/fix-session\n", rs(r, lowhex, 7), rs(r, lowhex, 40), rs(r, lowhex, 12), rs(r, lowhex, 40), rs(r, lowhex, 9), 1000+r.IntN(9000))
		}},
		{Name: "uuid-ids-json", Gen: func(r *rand.Rand) string {
			return fmt.Sprintf(`{"id": "%s", "request_id": "%s", "user_id": "%s", "org": {"uuid": "%s"}, "tenant_id": "%s", "correlationId": "%s"}`+"\n", uuid(r), uuid(r), uuid(r), uuid(r), uuid(r), uuid(r))
		}},
		{Name: "data-uri-images", Gen: func(r *rand.Rand) string {
			png := "iVBORw0KGgoAAAANSUhEUgAA" + base64.StdEncoding.EncodeToString(randBytes(r, 300+r.IntN(900)))
			jpg := "/9j/4AAQSkZJRgABAQAAAQABAAD/" + base64.StdEncoding.EncodeToString(randBytes(r, 300+r.IntN(600)))
			return fmt.Sprintf("<img alt=\"logo\" src=\"data:image/png;base64,%s\">\n.hero { background: url(data:image/jpeg;base64,%s); }\n", png, jpg)
		}},
		{Name: "pgp-public-key", Gen: func(r *rand.Rand) string {
			return "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n" + pemLines(r, "mQINB", 1000+r.IntN(600)) + "=" + rs(r, b64, 4) + "\n-----END PGP PUBLIC KEY BLOCK-----\n"
		}},
		{Name: "x509-certificate", Gen: func(r *rand.Rand) string {
			return "-----BEGIN CERTIFICATE-----\n" + pemLines(r, "MIIF", 900+r.IntN(600)) + "-----END CERTIFICATE-----\n"
		}},
		{Name: "ssh-public-keys", Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI%s dana@laptop\nssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ%s ci@runner\n", rs(r, b64, 43), rs(r, b64, 500))
		}},
		{Name: "ssh-certificates", Decided: true, Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("ssh-ed25519-cert-v01@openssh.com AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29t%s id_ed25519-cert.pub\n", rs(r, b64, 380))
		}},
		{Name: "jira-keys", Gen: func(r *rand.Rand) string {
			p := pick(r, "CORE", "INFRA", "PAY", "SEC", "OPS", "PLAT")
			return fmt.Sprintf("%s-%d: token refresh fails after %d seconds. Blocked by %s-%d, duplicates PLAT-%d.\n", p, r.IntN(99999), 60*r.IntN(100), p, r.IntN(9999), r.IntN(9999))
		}},
		{Name: "dashed-upper-ids", Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("Release marker %s-%s-%d-%s-%s is pinned; build %s-%s-%s.\n", pick(r, "RELEASE", "BUILD", "FACT", "NOTE", "MARKER"), rs(r, upper, 3)+rs(r, digits, 4), 2020+r.IntN(6), pick(r, "PLUTONIUM", "KUMQUAT", "ZEBRA", "LIMA"), pick(r, "ALPHA", "OMEGA", "DELTA"), rs(r, upper, 4), rs(r, upper+digits, 8), rs(r, upper, 5))
		}},
		{Name: "k8s-metadata", Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("metadata:\n  name: api-%s-%s\n  namespace: prod\n  resourceVersion: \"%d\"\n  uid: %s\n  ownerReferences:\n  - kind: ReplicaSet\n    uid: %s\nspec:\n  containers:\n  - env:\n    - name: DB_PASSWORD\n      valueFrom:\n        secretKeyRef:\n          name: db-credentials\n          key: password\n  containerID: containerd://%s\n", rs(r, lowalnum, 10), rs(r, lowalnum, 5), r.IntN(1e9), uuid(r), uuid(r), rs(r, lowhex, 64))
		}},
		{Name: "aws-arns", Gen: func(r *rand.Rand) string {
			acct := rs(r, digits, 12)
			return fmt.Sprintf("arn:aws:iam::%s:role/deploy-%s\narn:aws:secretsmanager:eu-west-1:%s:secret:prod/db-password-%s\n{\"Account\": \"%s\", \"UserId\": \"AROA%s:ci\"}\n", acct, rs(r, lower, 6), acct, rs(r, alnum, 6), acct, rs(r, upper+digits, 17))
		}},
		{Name: "s3-etags", Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("ETag: \"%s\"\n{\"Key\": \"backups/%d.tar.gz\", \"ETag\": \"\\\"%s-%d\\\"\", \"VersionId\": \"%s\"}\n", rs(r, lowhex, 32), r.IntN(1e6), rs(r, lowhex, 32), 1+r.IntN(40), rs(r, urlb64, 32))
		}},
		{Name: "trace-ids", Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("traceparent: 00-%s-%s-01\nlevel=info msg=\"request done\" request_id=%s trace_id=%s span_id=%s sentry_event_id=%s duration=12ms\n", rs(r, lowhex, 32), rs(r, lowhex, 16), uuid(r), rs(r, lowhex, 32), rs(r, lowhex, 16), rs(r, lowhex, 32))
		}},
		{Name: "go-sum", Gen: func(r *rand.Rand) string {
			m := pick(r, "github.com/google/uuid", "golang.org/x/crypto", "github.com/jackc/pgx/v5", "google.golang.org/grpc")
			return fmt.Sprintf("%s v1.%d.%d h1:%s\n%s v1.%d.%d/go.mod h1:%s\n", m, r.IntN(60), r.IntN(9), b64Of(r, 32), m, r.IntN(60), r.IntN(9), b64Of(r, 32))
		}},
		{Name: "pip-cargo-hashes", Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("requests==2.32.%d \\\n    --hash=sha256:%s \\\n    --hash=sha256:%s\n[[package]]\nname = \"serde\"\nversion = \"1.0.%d\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"%s\"\n%s  ctxhook_%d_linux_amd64.tar.gz\n", r.IntN(9), rs(r, lowhex, 64), rs(r, lowhex, 64), r.IntN(200), rs(r, lowhex, 64), rs(r, lowhex, 64), r.IntN(9))
		}},
		{Name: "minified-js", Gen: func(r *rand.Rand) string {
			var b strings.Builder
			for i := 0; i < 6; i++ {
				fmt.Fprintf(&b, "var %s=function(e,t){return e.__%s$%s||t.%s(\"%s.%s\")};", ident(r), ident(r), rs(r, lowalnum, 11), ident(r), pick(r, "settings", "login", "header"), ident(r))
			}
			fmt.Fprintf(&b, "import(\"./chunk-%s.js\");.%s_%s{color:#%s}\n", rs(r, alnum, 8), ident(r), rs(r, alnum+"-_", 5), rs(r, lowhex, 6))
			return b.String()
		}},
		{Name: "hex-colours", Gen: func(r *rand.Rand) string {
			var b strings.Builder
			for i := 0; i < 8; i++ {
				fmt.Fprintf(&b, "  --color-%s-%d: #%s;\n", pick(r, "gray", "blue", "red", "accent"), 100*(i+1), rs(r, lowhex, 6))
			}
			return b.String()
		}},
		{Name: "crypto-test-vectors", Decided: true, Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("Test vector %d (example only, from the RFC):\n   Key       = %s\n   Nonce     = %s\n   Plaintext = %s\n   Ciphertext= %s\n", r.IntN(20), rs(r, lowhex, 64), rs(r, lowhex, 24), rs(r, lowhex, 64), rs(r, lowhex, 64))
		}},
		{Name: "key-prose", Gen: func(r *rand.Rand) string {
			return pick(r,
				"Rotate the API key monthly; the token expires after 3600 seconds and the refresh token after 30 days.\n",
				"Never paste a secret into a ticket. Store the password in the vault and reference it by name.\n",
				"The client secret is shown once in the console; copy it then, because the key cannot be read again.\n",
				"If the access token is missing, the API returns 401; if the key is revoked, 403.\n",
				"Set the password policy: at least 14 characters, rotated every 90 days, no reuse of the last 5.\n") + sentence(r, 12) + ".\n"
		}},
		{Name: "identifier-assignments", Gen: func(r *rand.Rand) string {
			return pick(r,
				"const creds = { username: username, password: password, token: token };\n",
				"self.password = password\nself.api_key = api_key\nsecret = secretFromEnv\n",
				"return &Config{Token: token, Secret: secret, APIKey: apiKey}\n",
				"password: passwordInput.value,\naccessToken: accessTokenProvider.current(),\n",
				"def login(user, password=None, token=None):\n    password = password or prompt_password()\n") + fmt.Sprintf("%s := %s(%s)\n", ident(r), ident(r), ident(r))
		}},
		{Name: "terraform-references", Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("resource \"aws_db_instance\" \"main\" {\n  password = var.db_password\n  username = local.db_user\n}\nprovider \"vault\" {\n  token = data.vault_generic_secret.%s.data[\"token\"]\n}\nsecret_key = module.iam.secret_access_key\n", rs(r, lower, 6))
		}},
		{Name: "gha-secrets", Gen: func(r *rand.Rand) string {
			return "    env:\n      GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n      NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n      API_KEY: ${{ secrets." + strings.ToUpper(rs(r, lower, 6)) + "_API_KEY }}\n    with:\n      password: ${{ secrets.REGISTRY_PASSWORD }}\n"
		}},
		{Name: "shell-references", Gen: func(r *rand.Rand) string {
			return "curl -H \"Authorization: Bearer $API_TOKEN\" https://api.example.com/v1/me\nPGPASSWORD=$DB_PASSWORD psql -h db -U app\nexport TOKEN=\"${TOKEN:-}\"\nSECRET_KEY=${SECRET_KEY:?missing}\n"
		}},
		{Name: "getenv-calls", Gen: func(r *rand.Rand) string {
			return "key := os.Getenv(\"API_KEY\")\nconst secret = process.env.STRIPE_SECRET_KEY;\nsecret_key_base = ENV.fetch(\"SECRET_KEY_BASE\")\npassword = os.environ[\"DB_PASSWORD\"]\n"
		}},
		{Name: "placeholders", Gen: func(r *rand.Rand) string {
			return pick(r, "API_KEY=<your-api-key>\n", "TOKEN=xxxxxxxxxxxxxxxxxxxxxxxx\n", "password: changeme\n", "\"client_secret\": \"REDACTED\",\n", "SECRET=${TOKEN}\n", "api_key = \"YOUR_API_KEY_HERE\"\n", "password = \"********\"\n", "token: <TOKEN>\n", "DB_PASSWORD=your_password_here\n")
		}},
		{Name: "sops-enc-values", Decided: true, Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("db_password: ENC[AES256_GCM,data:%s,iv:%s,tag:%s,type:str]\n", b64Of(r, 12+r.IntN(20)), b64Of(r, 32), b64Of(r, 16))
		}},
		{Name: "kubeconfig-ca-data", Gen: func(r *rand.Rand) string {
			return "clusters:\n- cluster:\n    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t" + b64Of(r, 900) + "\n    server: https://10.0.0.1:6443\n  name: prod\n"
		}},
		{Name: "public-keys-other", Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("[Peer]\nPublicKey = %s\nAllowedIPs = 10.8.0.2/32\nEndpoint = vpn.example.com:51820\n# age recipient: age1%s\nuntrusted comment: minisign public key %s\nRWQ%s\n", b64Of(r, 32), rs(r, "qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58), rs(r, uphex, 16), rs(r, b64, 53))
		}},
		{Name: "chain-public-ids", Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("Transaction hash: 0x%s\nFrom: 0x%s\nBlock: %d\nbitcoin txid %s sent to bc1q%s\n", rs(r, lowhex, 64), rs(r, lowhex, 40), r.IntN(2e7), rs(r, lowhex, 64), rs(r, "qpzry9x8gf2tvdw0s3jn54khce6mua7l", 38))
		}},
		{Name: "gpg-fingerprints", Gen: func(r *rand.Rand) string {
			h := rs(r, uphex, 40)
			return fmt.Sprintf("pub   rsa4096 2021-03-01 [SC]\n      %s\nuid   Release Signing Key <release@example.org>\nKey fingerprint = %s %s %s %s %s  %s %s %s %s %s\n", h, h[0:4], h[4:8], h[8:12], h[12:16], h[16:20], h[20:24], h[24:28], h[28:32], h[32:36], h[36:40])
		}},
		{Name: "tickets-logs", Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("%s-%d: login fails with 401 'invalid token' for tenant %s (request %s, trace %s). Steps: 1) rotate the key 2) retry. Expected: 200.\n2025-01-%02dT12:00:00Z WARN auth: token expired user_id=%d session=%s\n", pick(r, "SUP", "BUG"), r.IntN(9999), uuid(r), uuid(r), rs(r, lowhex, 32), 1+r.IntN(28), r.IntN(1e6), rs(r, lowhex, 24))
		}},
		{Name: "code-general", Gen: func(r *rand.Rand) string {
			return fmt.Sprintf("func (s *%s) %s(ctx context.Context, req *%sRequest) (*%sResponse, error) {\n\tif err := s.%s.Validate(req.%s); err != nil {\n\t\treturn nil, fmt.Errorf(\"%s: %%w\", err)\n\t}\n\tdefer s.metrics.Observe(%q)\n\treturn s.next.%s(ctx, req)\n}\n", ident(r), ident(r), ident(r), ident(r), ident(r), ident(r), strings.ToLower(ident(r)), rs(r, lower, 12), ident(r))
		}},
	}
}

// CleanText draws about n bytes of one category.
func CleanText(c Category, seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, uint64(len(c.Name))*977+uint64(c.Name[0])))
	var out []string
	total := 0
	for total < n {
		s := c.Gen(r)
		out = append(out, s)
		total += len(s)
	}
	return out
}

// Mixed draws about n bytes of all categories interleaved, for timing.
func Mixed(seed uint64, n int) string {
	cats := Categories()
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(cats[r.IntN(len(cats))].Gen(r))
	}
	return b.String()[:n]
}

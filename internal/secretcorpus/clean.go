package secretcorpus

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Clean is about size bytes of text with no credential in it, shaped like
// what tool responses carry, from a seed: source code, logs with request,
// trace and span ids, UUIDs and commit SHAs, JSON API responses with
// vendors' object ids (Stripe, Anthropic, OpenAI, GitHub), prose that
// talks about tokens, keys and secrets, base64 images, checksums and
// integrity hashes, minified JavaScript with hashed bundle names. The
// redactor must leave it as it is.
func Clean(size int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 5))
	var b strings.Builder
	b.Grow(size + 4096)
	gens := []func(*rand.Rand, *strings.Builder){cleanCode, cleanLogs, cleanAPI, cleanProse, cleanImage, cleanHashes, cleanMinified, cleanTools, cleanServiceLogs}
	for i := 0; b.Len() < size; i++ {
		gens[i%len(gens)](r, &b)
	}
	return b.String()
}

func hx(r *rand.Rand, n int) string { return RandString(r, lowhex, n) }
func an(r *rand.Rand, n int) string { return RandString(r, Alnum, n) }
func uuid(r *rand.Rand) string {
	return hx(r, 8) + "-" + hx(r, 4) + "-4" + hx(r, 3) + "-a" + hx(r, 3) + "-" + hx(r, 12)
}
func pick(r *rand.Rand, xs ...string) string { return xs[r.IntN(len(xs))] }

var cleanWords = strings.Fields("the build failed after the cache was cleared and the token bucket limiter rejected requests " +
	"while the key rotation job ran for the secret store migration on the api gateway with access logs showing session " +
	"restarts password reset emails and auth callbacks in the new region credential checks passed using the staging " +
	"cluster signature verification of the release artefacts")

func sentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = cleanWords[r.IntN(len(cleanWords))]
	}
	return strings.Join(w, " ")
}

func cleanCode(r *rand.Rand, b *strings.Builder) {
	fn := pick(r, "refreshToken", "validateSecret", "loadAPIKey", "rotateKeys", "parseSignature", "newSessionStore", "hashPassword")
	fmt.Fprintf(b, "// %s %s.\nfunc %s(ctx context.Context, cfg *Config) (string, error) {\n", fn, sentence(r, 9), fn)
	fmt.Fprintf(b, "\ttoken, err := cfg.Store.Get(ctx, %q)\n\tif err != nil {\n\t\treturn \"\", fmt.Errorf(\"%s: %%w\", err)\n\t}\n", "tokens/"+pick(r, "github", "deploy", "ci"), fn)
	fmt.Fprintf(b, "\tkey := sha256.Sum256([]byte(token + cfg.Salt))\n\tcacheKey := fmt.Sprintf(\"%%s:%%x\", cfg.Namespace, key[:8])\n")
	fmt.Fprintf(b, "\tconst buildID = %q // %s\n\tsecretName := cfg.SecretPrefix + \"-\" + strconv.Itoa(cfg.Version)\n", hx(r, 40), sentence(r, 5))
	fmt.Fprintf(b, "\tif apiKey := os.Getenv(\"API_KEY\"); apiKey == \"\" {\n\t\tlog.Printf(\"no api key; using %%s\", cacheKey)\n\t}\n")
	fmt.Fprintf(b, "\treturn secretName, nil\n}\n\n")
	fmt.Fprintf(b, "def %s(self, request_id: str, password_hash: bytes) -> bool:\n    \"\"\"%s.\"\"\"\n    digest = hashlib.sha256(password_hash).hexdigest()\n"+
		"    return hmac.compare_digest(digest, self.expected_digest)  # %s\n\n", strings.ToLower(fn), sentence(r, 8), hx(r, 12))
	fmt.Fprintf(b, "const %sSecretRef = process.env.SECRET_REF ?? %q;\nexport async function fetchToken(client) { return client.post(\"/oauth/token\", { grant_type: \"client_credentials\" }); }\n\n",
		strings.ToLower(fn[:1])+fn[1:], "projects/"+pick(r, "core", "web")+"/secrets/db-password/versions/latest")
}

func cleanLogs(r *rand.Rand, b *strings.Builder) {
	for i := 0; i < 12; i++ {
		ts := fmt.Sprintf("2026-11-%02dT%02d:%02d:%02d.%03dZ", 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1000))
		switch r.IntN(9) {
		case 0:
			fmt.Fprintf(b, "%s INFO request_id=req_%s trace_id=%s span_id=%s method=POST path=/v1/auth/token status=200 dur=%dms\n", ts, hx(r, 10), hx(r, 32), hx(r, 16), r.IntN(900))
		case 1:
			fmt.Fprintf(b, "%s WARN token bucket build %s exhausted for session %s (auth request req_%s)\n", ts, hx(r, 8), hx(r, 32), hx(r, 10))
		case 2:
			fmt.Fprintf(b, "%s INFO deploy commit=%s image=registry.example.com/api@sha256:%s key CVX-%d\n", ts, hx(r, 40), hx(r, 64), 1000+r.IntN(9000))
		case 3:
			fmt.Fprintf(b, "%s DEBUG x-request-id: %s traceparent: 00-%s-%s-01 user=%s\n", ts, uuid(r), hx(r, 32), hx(r, 16), uuid(r))
		case 4:
			fmt.Fprintf(b, "%s INFO session %s key rotation job %s finished; secret store migration step %d\n", ts, hx(r, 32), uuid(r), r.IntN(20))
		case 5:
			fmt.Fprintf(b, "%s ERROR github.com/org/repo/pkg/auth.(*Verifier).Check(0xc000%s) at commit %s: signature mismatch\n", ts, hx(r, 6), hx(r, 7))
		case 6:
			fmt.Fprintf(b, "%s INFO run_id=%d job=build-%s artifact=dist/app-%s.tar.gz sha256=%s\n", ts, r.IntN(1<<30), hx(r, 8), hx(r, 12), hx(r, 64))
		case 7:
			fmt.Fprintf(b, "%s INFO GET /api/v1/files/%s?page=%d&per_page=50 correlation-id=%s\n", ts, an(r, 44), r.IntN(9), uuid(r))
		default:
			fmt.Fprintf(b, "%s INFO pod web-%s-%s ready; node ip-10-0-%d-%d.ec2.internal; instance i-0%s\n", ts, hx(r, 10), RandString(r, lowerNum, 5), r.IntN(255), r.IntN(255), hx(r, 16))
		}
	}
}

func cleanAPI(r *rand.Rand, b *strings.Builder) {
	switch r.IntN(5) {
	case 0: // Stripe
		fmt.Fprintf(b, `{"id": "pi_3%s", "object": "payment_intent", "customer": "cus_%s", "latest_charge": "ch_3%s", "payment_method": "pm_1%s", "amount": %d, "currency": "eur", "metadata": {"order": "ord_%s"}, "created": %d}`+"\n",
			an(r, 23), an(r, 14), an(r, 23), an(r, 23), r.IntN(100000), an(r, 12), 1760000000+r.IntN(1e7))
	case 1: // Anthropic message with a tool use
		fmt.Fprintf(b, `{"id": "msg_01%s", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "tool_use", "id": "toolu_01%s", "name": "search", "input": {"query": %q}}], "usage": {"input_tokens": %d, "output_tokens": %d}, "request_id": "req_011C%s"}`+"\n",
			an(r, 22), an(r, 22), sentence(r, 5), r.IntN(9000), r.IntN(900), an(r, 20))
	case 2: // OpenAI
		fmt.Fprintf(b, `{"id": "chatcmpl-%s", "object": "chat.completion", "choices": [{"message": {"role": "assistant", "tool_calls": [{"id": "call_%s", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]}}], "system_fingerprint": "fp_%s", "response_id": "resp_%s"}`+"\n",
			an(r, 29), an(r, 24), hx(r, 10), hx(r, 48))
	case 3: // GitHub
		fmt.Fprintf(b, `{"sha": "%s", "node_id": "C_kwDO%s", "commit": {"tree": {"sha": "%s"}, "message": %q, "verification": {"verified": true, "reason": "valid", "signature": null}}, "html_url": "https://github.com/org/repo/commit/%s", "etag": "W/\"%s\""}`+"\n",
			hx(r, 40), an(r, 18), hx(r, 40), sentence(r, 7), hx(r, 40), hx(r, 64))
	default: // a tracker, paginated
		fmt.Fprintf(b, `{"key": "CVX-%d", "fields": {"summary": %q, "description": %q}, "uuid": "%s", "checksum": "sha256:%s", "next_page_token": "%s", "build_id": "%s", "idempotency_key": "%s"}`+"\n",
			r.IntN(9999), sentence(r, 6), sentence(r, 30), uuid(r), hx(r, 64), base64.StdEncoding.EncodeToString([]byte("cursor:"+hx(r, 12))), hx(r, 32), uuid(r))
	}
}

func cleanProse(r *rand.Rand, b *strings.Builder) {
	fmt.Fprintf(b, "%s. The secret is to keep the key rotation job idempotent; %s. A token is never logged, and the password reset flow uses a signed link. %s.\n\n",
		sentence(r, 14), sentence(r, 20), sentence(r, 25))
}

func cleanImage(r *rand.Rand, b *strings.Builder) {
	raw := make([]byte, 600+r.IntN(1800))
	for i := range raw {
		raw[i] = byte(r.IntN(256))
	}
	enc := base64.StdEncoding.EncodeToString(raw)
	if r.IntN(2) == 0 {
		fmt.Fprintf(b, `{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgoAAAANSUhEUgAA%s"}`+"\n", enc)
		return
	}
	fmt.Fprintf(b, "<img alt=\"chart\" src=\"data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ%s\">\n", enc)
}

func cleanHashes(r *rand.Rand, b *strings.Builder) {
	for i := 0; i < 6; i++ {
		raw := make([]byte, 64)
		for k := range raw {
			raw[k] = byte(r.IntN(256))
		}
		fmt.Fprintf(b, "%s  dist/ctxhook_%d_linux_amd64.tar.gz\n", hx(r, 64), i)
		fmt.Fprintf(b, "github.com/pkg/mod%d v1.%d.0 h1:%s\n", i, i, base64.StdEncoding.EncodeToString(raw[:32]))
		fmt.Fprintf(b, `"integrity": "sha512-%s",`+"\n", base64.StdEncoding.EncodeToString(raw))
		fmt.Fprintf(b, "md5 %s sha1 %s blake3 %s\n", hx(r, 32), hx(r, 40), hx(r, 64))
	}
}

func cleanMinified(r *rand.Rand, b *strings.Builder) {
	fmt.Fprintf(b, `(self.webpackChunk_N_E=self.webpackChunk_N_E||[]).push([[%d],{%d:function(e,t,n){"use strict";n.r(t),n.d(t,{default:function(){return o}});var r=n(%d),a=n.n(r),i=n(%d);function o(e){var t=e.token,n=e.apiKey,r=(0,i.useState)(null),o=r[0],s=r[1];return(0,a().createElement)("div",{className:"Auth_container__%s"},t?"signed in":n)}}}]);`+"\n",
		r.IntN(999), r.IntN(99999), r.IntN(9999), r.IntN(9999), an(r, 5))
	fmt.Fprintf(b, `<script src="/_next/static/chunks/pages/_app-%s.js" integrity="sha384-%s" crossorigin="anonymous"></script><link rel="stylesheet" href="/assets/application-%s.css">`+"\n",
		hx(r, 16), base64.StdEncoding.EncodeToString([]byte(an(r, 48))), hx(r, 64))
	fmt.Fprintf(b, "//# sourceMappingURL=main.%s.js.map\nvar __webpack_modules__={%q:function(module){module.exports=JSON.parse('{\"keyPrefix\":\"app\",\"tokenTTL\":3600}')}};\n",
		hx(r, 20), "./node_modules/.pnpm/react-dom@18.3.1_react@18.3.1/node_modules/react-dom/cjs/react-dom.production.min.js")
}

// cleanServiceLogs are log lines and records whose identifiers stand a
// few bytes after a credential's word (a service named auth-svc or
// token-cache, a session store), or under keys that end in token or key
// but page, cache or dedup: request, trace and span ids, UUIDs, SHAs,
// paging tokens, idempotency and cache keys.
func cleanServiceLogs(r *rand.Rand, b *strings.Builder) {
	ts := fmt.Sprintf("2026-11-%02dT%02d:%02d:%02dZ", 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60))
	svc := pick(r, "auth-svc", "token-cache", "session-store", "api-gateway", "key-manager", "secret-sync", "access-proxy")
	fmt.Fprintf(b, "%s ERROR %s request_id=req_%s trace_id=%s span_id=%s msg=\"refresh failed\"\n", ts, svc, hx(r, 10), hx(r, 32), hx(r, 16))
	fmt.Fprintf(b, "%s WARN %s session uuid=%s commit=%s build_id=%s sha256=%s\n", ts, svc, uuid(r), hx(r, 40), hx(r, 32), hx(r, 64))
	fmt.Fprintf(b, "%s DEBUG %s next_page_token=%s continuation-token=%s cursor=%s page_token: %s\n", ts, svc,
		base64.StdEncoding.EncodeToString([]byte("offset:"+hx(r, 12))), base64.StdEncoding.EncodeToString([]byte(an(r, 30))), an(r, 24), an(r, 32))
	fmt.Fprintf(b, "%s INFO %s idempotency-key=%s cache_key=%s etag=%s ticket=CVX-%d build id: %s\n", ts, svc, uuid(r), hx(r, 40), hx(r, 32), r.IntN(9999), hx(r, 40))
	fmt.Fprintf(b, `{"service": %q, "auth_request_id": "req_%s", "token_trace_id": "%s", "session_uuid": "%s", "api_commit_sha": "%s", "nextPageToken": "%s", "pageToken": "%s"}`+"\n",
		svc, an(r, 20), hx(r, 32), uuid(r), hx(r, 40), an(r, 40), RandString(r, urlb64, 44))
}

// cleanTools is what developer tools print: git log, Terraform state,
// stack traces, URLs with object keys, long test names, CSS modules.
func cleanTools(r *rand.Rand, b *strings.Builder) {
	fmt.Fprintf(b, "commit %s\nAuthor: Dana Kim <dana.kim@example.com>\nDate:   Tue Nov 3 10:%02d:00 2026 +0100\n\n    %s\n\n    Change-Id: I%s\n\n", hx(r, 40), r.IntN(60), sentence(r, 8), hx(r, 40))
	fmt.Fprintf(b, `{"type": "aws_security_group", "instances": [{"attributes": {"id": "sg-0%s", "arn": "arn:aws:ec2:eu-west-2:%d:security-group/sg-0%s", "vpc_id": "vpc-0%s", "owner_id": "%d"}}]}`+"\n",
		hx(r, 16), 100000000000+r.IntN(9e11), hx(r, 16), hx(r, 16), 100000000000+r.IntN(9e11))
	fmt.Fprintf(b, "GET https://bucket.s3.amazonaws.com/?list-type=2&prefix=reports%%2F2026&key=reports/2026/q%d-summary-%s.pdf&continuation-token=%s 200\n", 1+r.IntN(4), hx(r, 8), base64.StdEncoding.EncodeToString([]byte(an(r, 30))))
	fmt.Fprintf(b, "Exception in thread \"main\" java.lang.IllegalStateException: token expired\n\tat com.example.auth.service.impl.TokenRefreshServiceImpl.refresh(TokenRefreshServiceImpl.java:%d)\n\tat org.springframework.security.oauth2.client.endpoint.DefaultAuthorizationCodeTokenResponseClient.getTokenResponse(DefaultAuthorizationCodeTokenResponseClient.java:%d)\n", r.IntN(400), r.IntN(400))
	fmt.Fprintf(b, "=== RUN   test_refresh_token_rotation_with_expired_secret_%d\n--- PASS: TestSessionTokenIsRotatedAfterPasswordReset_%d (0.%02ds)\n", r.IntN(2030), r.IntN(99), r.IntN(99))
	fmt.Fprintf(b, `<div class="Button_primary__%s LoginForm_passwordField__%s">`+"\n", an(r, 5), an(r, 5))
	fmt.Fprintf(b, "Uploaded file-%s to vector store vs_%s; batch batch_%s queued (see the request id req_%s).\n", an(r, 22), an(r, 24), hx(r, 32), hx(r, 10))
	fmt.Fprintf(b, "https://docs.google.com/spreadsheets/d/1%s/edit#gid=0 and https://www.youtube.com/watch?v=%s\n", RandString(r, urlb64, 43), RandString(r, urlb64, 11))
}

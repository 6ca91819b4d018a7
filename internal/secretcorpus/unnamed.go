package secretcorpus

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
)

// Credentials in formats gitleaks' catalogue (v8.30.1) does not name,
// each drawn from the shape its vendor publishes (prefix, alphabet,
// length), as realistic values from a seed. They measure what the
// redactor finds by shape alone, so they are planted where no rule
// helps: bare prose, neutral keys, JSON, URLs.

const (
	lowerNum = "abcdefghijklmnopqrstuvwxyz0123456789"
	base32L  = "abcdefghijklmnopqrstuvwxyz234567"
)

// unnamedFormat is one vendor's token format.
type unnamedFormat struct {
	name, vendor string
	gen          func(r *rand.Rand) string
	// ctx, when set, replaces the default places (prose, key = value,
	// JSON, URL); %s is the secret.
	ctx []string
	// whole: gen returns the text, secret the part that must go.
	whole func(r *rand.Rand) (text, secret string)
}

func pre(p, alphabet string, n int) func(*rand.Rand) string { return cat(lit(p), rnd(alphabet, n)) }

var unnamedFormats = []unnamedFormat{
	{name: "doppler-service-token", vendor: "Doppler", gen: pre("dp.st.", Alnum, 43)},
	{name: "doppler-service-account", vendor: "Doppler", gen: pre("dp.sa.", Alnum, 43)},
	{name: "doppler-cli-token", vendor: "Doppler", gen: pre("dp.ct.", Alnum, 43)},
	{name: "doppler-scim-token", vendor: "Doppler", gen: pre("dp.scim.", Alnum, 43)},
	{name: "vault-service-token", vendor: "Vault", gen: pre("hvs.", Alnum, 24)},
	{name: "vault-batch-token", vendor: "Vault", gen: func(r *rand.Rand) string { return "hvb." + RandString(r, urlb64, 60+r.IntN(70)) }},
	{name: "vault-recovery-token", vendor: "Vault", gen: pre("hvr.", Alnum, 24)},
	{name: "tailscale-auth-key", vendor: "Tailscale", gen: cat(lit("tskey-auth-k"), rnd(Alnum, 10), lit("CNTRL-"), rnd(Alnum, 33))},
	{name: "tailscale-api-key", vendor: "Tailscale", gen: cat(lit("tskey-api-k"), rnd(Alnum, 10), lit("CNTRL-"), rnd(Alnum, 33))},
	{name: "tailscale-oauth-client", vendor: "Tailscale", gen: cat(lit("tskey-client-k"), rnd(Alnum, 10), lit("CNTRL-"), rnd(Alnum, 33))},
	{name: "supabase-pat", vendor: "Supabase", gen: pre("sbp_", lowhex, 40)},
	{name: "supabase-secret-key", vendor: "Supabase", gen: cat(lit("sb_secret_"), rnd(urlb64, 22), lit("_"), rnd(Alnum, 8))},
	{name: "render-api-key", vendor: "Render", gen: pre("rnd_", Alnum, 32)},
	{name: "sentry-org-token", vendor: "Sentry", gen: func(r *rand.Rand) string {
		return "sntrys_eyJpYXQiOjE3" + RandString(r, b64, 90+r.IntN(60)) + "_" + RandString(r, b64, 43)
	}},
	{name: "netlify-pat", vendor: "Netlify", gen: pre("nfp_", Alnum, 36)},
	{name: "buildkite-user-token", vendor: "Buildkite", gen: pre("bkua_", lowhex, 40)},
	{name: "vercel-pat", vendor: "Vercel", gen: pre("vcp_", Alnum, 56)},
	{name: "neon-api-key", vendor: "Neon", gen: pre("napi_", lowerNum, 64)},
	{name: "groq-api-key", vendor: "Groq", gen: pre("gsk_", Alnum, 52)},
	{name: "xai-api-key", vendor: "xAI", gen: pre("xai-", Alnum, 80)},
	{name: "replicate-token", vendor: "Replicate", gen: pre("r8_", Alnum, 37)},
	{name: "langsmith-pat", vendor: "LangSmith", gen: cat(lit("lsv2_pt_"), rnd(lowhex, 32), lit("_"), rnd(lowhex, 10))},
	{name: "langsmith-service-key", vendor: "LangSmith", gen: cat(lit("lsv2_sk_"), rnd(lowhex, 32), lit("_"), rnd(lowhex, 10))},
	{name: "tavily-api-key", vendor: "Tavily", gen: pre("tvly-dev-", Alnum, 32)},
	{name: "firecrawl-api-key", vendor: "Firecrawl", gen: pre("fc-", lowhex, 32)},
	{name: "pinecone-api-key", vendor: "Pinecone", gen: cat(lit("pcsk_"), rnd(Alnum, 6), lit("_"), rnd(Alnum, 63))},
	{name: "resend-api-key", vendor: "Resend", gen: cat(lit("re_"), rnd(Alnum, 8), lit("_"), rnd(Alnum, 24))},
	{name: "linear-oauth-token", vendor: "Linear", gen: pre("lin_oauth_", lowhex, 64)},
	{name: "figma-pat", vendor: "Figma", gen: pre("figd_", urlb64, 40)},
	{name: "docker-hub-pat", vendor: "Docker", gen: pre("dckr_pat_", urlb64, 27)},
	{name: "docker-hub-org-token", vendor: "Docker", gen: pre("dckr_oat_", urlb64, 32)},
	{name: "honeycomb-ingest-key", vendor: "Honeycomb", gen: cat(lit("hcaik_01"), rnd(lowerNum, 56))},
	{name: "posthog-personal-key", vendor: "PostHog", gen: pre("phx_", Alnum, 47)},
	{name: "elevenlabs-api-key", vendor: "ElevenLabs", gen: pre("sk_", lowhex, 48)},
	{name: "together-api-key", vendor: "Together AI", gen: pre("tgp_v1_", urlb64, 43)},
	{name: "cursor-api-key", vendor: "Cursor", gen: pre("key_", lowhex, 64)},
	{name: "logfire-write-token", vendor: "Pydantic Logfire", gen: pre("pylf_v1_us_", Alnum, 48)},
	{name: "browserbase-api-key", vendor: "Browserbase", gen: pre("bb_live_", urlb64, 27)},
	{name: "e2b-api-key", vendor: "E2B", gen: pre("e2b_", lowhex, 40)},
	{name: "jina-api-key", vendor: "Jina AI", gen: pre("jina_", Alnum, 60)},
	{name: "voyage-api-key", vendor: "Voyage AI", gen: pre("pa-", urlb64, 43)},
	{name: "stripe-webhook-secret", vendor: "Stripe", gen: pre("whsec_", Alnum, 32)},
	{name: "deno-deploy-token", vendor: "Deno Deploy", gen: pre("ddp_", Alnum, 36)},
	{name: "circleci-pat", vendor: "CircleCI", gen: cat(lit("CCIPAT_"), rnd(Alnum, 22), lit("_"), rnd(lowhex, 40))},
	{name: "mailersend-token", vendor: "MailerSend", gen: pre("mlsn.", lowhex, 64)},
	{name: "cerebras-api-key", vendor: "Cerebras", gen: pre("csk-", lowerNum, 48)},
	{name: "runpod-api-key", vendor: "RunPod", gen: pre("rpa_", upnum, 40)},
	{name: "apify-token", vendor: "Apify", gen: pre("apify_api_", Alnum, 36)},
	{name: "llamacloud-api-key", vendor: "LlamaIndex", gen: pre("llx-", Alnum, 48)},
	{name: "turbopuffer-api-key", vendor: "turbopuffer", gen: pre("tpuf_", Alnum, 32)},
	{name: "ory-pat", vendor: "Ory", gen: pre("ory_pat_", Alnum, 32)},
	{name: "stytch-secret", vendor: "Stytch", gen: pre("secret-live-", urlb64, 36)},
	{name: "clickup-token", vendor: "ClickUp", gen: cat(lit("pk_"), rnd("0123456789", 8), lit("_"), rnd(upnum, 32))},
	{name: "flagsmith-server-key", vendor: "Flagsmith", gen: pre("ser.", Alnum, 22)},
	{name: "statsig-server-secret", vendor: "Statsig", gen: pre("secret-", Alnum, 43)},
	// Signed URLs: the signature (or token) parameter is the secret.
	{name: "azure-sas-sig", vendor: "Azure Storage", whole: func(r *rand.Rand) (string, string) {
		sig := url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(RandString(r, b64, 32))))
		return "https://acct" + RandString(r, lowerNum, 6) + ".blob.core.windows.net/exports/report.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-01T00:00:00Z&st=2026-11-01T00:00:00Z&spr=https&sig=" + sig, sig
	}},
	{name: "aws-presigned-url", vendor: "AWS S3", whole: func(r *rand.Rand) (string, string) {
		sig := RandString(r, lowhex, 64)
		return "https://bucket.s3.eu-west-2.amazonaws.com/reports/q3.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=ASIA" +
			RandString(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16) + "%2F20261201%2Feu-west-2%2Fs3%2Faws4_request&X-Amz-Date=20261201T101500Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=" + sig, sig
	}},
	{name: "gcs-signed-url", vendor: "Google Cloud Storage", whole: func(r *rand.Rand) (string, string) {
		sig := RandString(r, lowhex, 512)
		return "https://storage.googleapis.com/my-bucket/exports/data.json?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=loader%40proj-" +
			RandString(r, lowerNum, 6) + ".iam.gserviceaccount.com%2F20261201%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20261201T101500Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature=" + sig, sig
	}},
	{name: "url-access-token", vendor: "OAuth 2.0 (RFC 6750 query form)", whole: func(r *rand.Rand) (string, string) {
		tok := RandString(r, urlb64, 40+r.IntN(40))
		return "GET https://api.example.com/v2/export?format=csv&access_token=" + tok + " 200", tok
	}},
	// A service account's key id beside its account.
	{name: "gcp-private-key-id", vendor: "Google Cloud IAM", whole: func(r *rand.Rand) (string, string) {
		id := RandString(r, lowhex, 40)
		return fmt.Sprintf(`{"type": "service_account", "project_id": "proj-%s", "private_key_id": "%s", "client_email": "loader@proj-%s.iam.gserviceaccount.com", "client_id": "1%s"}`,
			RandString(r, lowerNum, 6), id, RandString(r, lowerNum, 6), RandString(r, "0123456789", 20)), id
	}},
	// Tokens with no prefix at all, known by the words around them.
	{name: "cloudflare-api-token", vendor: "Cloudflare", gen: rnd(urlb64, 40), ctx: []string{
		"Log in to cloudflare using %s and purge the cache.", "The Cloudflare API token is %s", "cf token: %s", `{"cloudflare": {"api_token": "%s"}}`}},
	{name: "azure-devops-pat", vendor: "Azure DevOps", gen: rnd(base32L, 52), ctx: []string{
		"The PAT is %s (expires in 30 days).", "pat = %s", "Use this personal access token: %s"}},
	{name: "linode-token", vendor: "Linode", gen: rnd(lowhex, 64), ctx: []string{
		"linode token: %s", "The API token is %s", "export LINODE_CLI_TOKEN=%s"}},
}

// UnnamedKinds counts the formats Unnamed plants.
func UnnamedKinds() int { return len(unnamedFormats) }

// UnnamedFormats lists them: name and vendor.
func UnnamedFormats() [][2]string {
	out := make([][2]string, len(unnamedFormats))
	for i, f := range unnamedFormats {
		out[i] = [2]string{f.name, f.vendor}
	}
	return out
}

// unnamedPlaces are where a prefixed token is planted: bare prose, a
// neutral key = value, JSON (and JSON in a string), a URL.
var unnamedPlaces = []string{
	"The %[1]s credential is %[2]s for prod.",
	"Deploy finished; %[2]s was in the output.",
	"%[2]s",
	"see (%[2]s) above",
	"value = %[2]s",
	"%[3]s_CONFIG=%[2]s",
	`{"service": "%[1]s", "value": "%[2]s", "ok": true}`,
	`{"content": [{"type": "text", "text": "{\"value\": \"%[2]s\"}"}]}`,
	"https://hooks.example.com/notify?t=%[2]s&retry=1",
}

// Unnamed plants perFormat secrets of every unnamed format, each place
// in turn, from a seed.
func Unnamed(perFormat int, seed uint64) []Planted {
	r := rand.New(rand.NewPCG(seed, 11))
	var out []Planted
	for _, f := range unnamedFormats {
		for i := 0; i < perFormat; i++ {
			if f.whole != nil {
				text, sec := f.whole(r)
				switch i % 3 {
				case 1:
					text = fmt.Sprintf(`{"download": {"url": %q}}`, text)
				case 2:
					text = "Fetched " + text + " in 120 ms"
				}
				out = append(out, Planted{Kind: f.name, Secret: sec, Text: text})
				continue
			}
			sec := f.gen(r)
			var text string
			if f.ctx != nil {
				text = fmt.Sprintf(f.ctx[i%len(f.ctx)], sec)
			} else {
				env := strings.ToUpper(strings.NewReplacer(" ", "_", ".", "_").Replace(f.vendor))
				text = fmt.Sprintf(unnamedPlaces[i%len(unnamedPlaces)], f.vendor, sec, env)
			}
			out = append(out, Planted{Kind: f.name, Secret: sec, Text: text})
		}
	}
	return out
}

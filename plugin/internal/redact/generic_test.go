package redact

import (
	"strings"
	"testing"
)

// TestGenericKeyed: identifiers a few bytes after a credential's word,
// or under a key that pages, caches or dedups, stay as they are; values
// under a credential's own key are taken, and the key stays before the
// marker.
func TestGenericKeyed(t *testing.T) {
	kept := []string{
		"ERROR auth-svc request_id=req_7f3a9b2c41 status=500",
		"WARN token-cache trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7",
		"GET /?list-type=2&continuation-token=MGVJVWRGM2Zadzg2M1V0MmVmYXFRS1hmdDZUTENQ 200",
		`{"next_page_token": "Y3Vyc29yOmFjNTVhMGY1Nzk5Yw==", "pageToken": "QO-6GqMHOFaCM3fsbBVEpliQJBgBcH9eg-QM7cyIjRel"}`,
		`{"idempotency_key": "b39faa47-c0f3-4aa7-a68e-073d3d8f98c0", "cache_key": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"}`,
		"session-store uuid=123e4567-e89b-42d3-a456-426614174000 commit=4bf92f3577b34da6a3ce929d0e0e47364bf92f35",
		"key-manager build id: 8f3e2a1c9d4b7e6f8f3e2a1c9d4b7e6f sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"auth: key=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"token = 123e4567-e89b-42d3-a456-426614174000",
		"exports.SOCKS5_NO_ACCEPTABLE_AUTH = exports.SOCKS5_CUSTOM_AUTH_END;",
		"RegEnumKey = win32api.RegEnumKey",
		`{"pageToken": "QO-SgP_x8fA", "sha": "77f81f0f43bbf442a71f085d29c62d0425e53fd4"}`,
	}
	for _, s := range kept {
		if out, _ := New().String(s); out != s {
			t.Errorf("changed: %q\n -> %q", s, out)
		}
	}
	taken := []struct{ in, want string }{
		{"creds = Q3r8ZbT1xW7mN2pL4kJ9", "creds = [REDACTED:generic-api-key]"},
		{`config 'bot_token': 'Zx81bQ4pLm2Nc7Vt9Ry3'`, `config 'bot_token': '[REDACTED:generic-api-key]'`},
		{"auth-svc token: Q3r8ZbT1xW7mN2pL4kJ9hG6f", "auth-svc token: [REDACTED:generic-api-key]"},
		{"export SECRET_KEY_BASE=8f3e2a1c9d4b7e6f8f3e2a1c9d4b", "export SECRET_KEY_BASE=[REDACTED:generic-api-key]"},
		{"API key: Q3r8ZbT1xW7mN2pL4kJ9", "API key: [REDACTED:generic-api-key]"},
		{"DEPLOY_TOKEN=123e4567-e89b-42d3-a456-426614174000", "DEPLOY_TOKEN=[REDACTED:generic-api-key]"},
		{"auth: token=Q3r8ZbT1xW7mN2pL4kJ9hG6f", "auth: [REDACTED:generic-api-key]"},
		// A SHA after Sourcegraph's name is its token's bare form.
		{"SOURCEGRAPH_TOKEN 77f81f0f43bbf442a71f085d29c62d0425e53fd4", "SOURCEGRAPH_TOKEN [REDACTED:sourcegraph-access-token]"},
	}
	for _, c := range taken {
		if out, _ := New().String(c.in); out != c.want {
			t.Errorf("%q\n -> %q\nwant %q", c.in, out, c.want)
		}
	}
}

// TestKeyWords: names split into their words.
func TestKeyWords(t *testing.T) {
	for in, want := range map[string]string{
		"apiKey": "api key", "APIKey": "api key", "X-Api-Key": "x api key", "AWS_SECRET_ACCESS_KEY": "aws secret access key",
		"next_page_token": "next page token", "NextContinuationToken": "next continuation token", "oauth2Token": "oauth2 token", "key": "key",
	} {
		if got := strings.Join(keyWords(in), " "); got != want {
			t.Errorf("keyWords(%q) = %q, want %q", in, got, want)
		}
	}
}

package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/store"
)

// TestIdentifiersStoredAndFound: request ids, trace ids, UUIDs, SHAs and
// paging tokens next to words like auth, token, key and session go
// through Claude Code's recorded PostToolUse and the real plugin.wasm
// into the store unredacted, and a search for each finds the event. A
// credential in the same result is redacted, and its key and the rule's
// marker stay searchable.
func TestIdentifiersStoredAndFound(t *testing.T) {
	ids := map[string]string{
		"request id":      "req_7f3a9b2c41",
		"trace id":        "4bf92f3577b34da6a3ce929d0e0e4736",
		"uuid":            "123e4567-e89b-42d3-a456-426614174000",
		"commit":          "9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d",
		"sha256":          "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"paging token":    "Y3Vyc29yOmFjNTVhMGY1Nzk5Yw",
		"idempotency key": "b39faa47-c0f3-4aa7-a68e-073d3d8f98c0",
	}
	const secret = "Q3r8ZbT1xW7mN2pL4kJ9hG6fD5sA"
	text := "ERROR auth-svc request_id=" + ids["request id"] + " status=500\n" +
		"WARN token-cache trace_id=" + ids["trace id"] + " miss\n" +
		"session-store uuid=" + ids["uuid"] + " commit=" + ids["commit"] + "\n" +
		"key-manager sha256=" + ids["sha256"] + " next_page_token=" + ids["paging token"] + "\n" +
		`{"auth": {"idempotency_key": "` + ids["idempotency key"] + `"}}` + "\n" +
		"deploy-bot token: " + secret + "\n"
	content, _ := json.Marshal([]map[string]string{{"type": "text", "text": text}})
	var p map[string]any
	if err := json.Unmarshal(payload(t, "PostToolUse"), &p); err != nil {
		t.Fatal(err)
	}
	p["tool_response"] = json.RawMessage(content)
	post, _ := json.Marshal(p)

	e := home(t)
	if _, errs, code := runHook(t, e, "PostToolUse", post); code != 0 {
		t.Fatalf("post: code %d err %q", code, errs)
	}
	st := openStore(t, e)
	for name, id := range ids {
		hits, err := st.Search(store.ParseQuery(id), store.SearchOptions{})
		if err != nil || len(hits) != 1 {
			t.Errorf("search %s %q: %d hits, %v", name, id, len(hits), err)
			continue
		}
		if !strings.Contains(hits[0].Event.Response, id) {
			t.Errorf("%s %q not stored as it was: %.400s", name, id, hits[0].Event.Response)
		}
	}
	for _, q := range []string{"token generic-api-key", "deploy-bot"} {
		hits, err := st.Search(store.ParseQuery(q), store.SearchOptions{})
		if err != nil || len(hits) != 1 {
			t.Errorf("search %q: %d hits, %v", q, len(hits), err)
			continue
		}
		if r := hits[0].Event.Response; strings.Contains(r, secret) || !strings.Contains(r, "token: [REDACTED:generic-api-key]") {
			t.Errorf("the credential is not redacted with its key kept: %.600s", r)
		}
	}
}

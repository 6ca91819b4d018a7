package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestResumeBlockBound: whatever the session holds, the block keeps to
// its bound, always names the relay servers holding a token, and is given once per change.
func TestResumeBlockBound(t *testing.T) {
	for _, max := range []int{300, 600, 1000, abi.DefaultResumeBytes, 4000} {
		for _, n := range []int{0, 1, 5, maxRecent} {
			st := sessionState{Tokens: map[string]string{"tickets": "tok-live-9f8e7d6c5b4a39281706"}}
			for i := range n {
				st.noteRecent(recentCall{Key: fmt.Sprintf("e%016x", i), Server: "tickets", Tool: "get_ticket",
					Title: callTitle(fmt.Sprintf(`{"id":"TCK-%d","q":"%s","session_token":"x"}`, i, strings.Repeat("é", 50)), "session_token")})
			}
			st.noteSearch(strings.Repeat("long query ", 30))
			st.noteSearch("short")
			raw, _ := json.Marshal(st)
			d := &decision{req: abi.HandleRequest{Config: abi.Config{Servers: map[string]abi.ServerConfig{"tickets": {Relay: true}},
				Resume: abi.ResumeConfig{MaxBytes: max}}, State: map[string]string{"session/s": string(raw)}}, session: "s"}
			d.loadState()
			block := d.resumeBlock("compact")
			if len(block) > max {
				t.Errorf("max %d, %d responses: block of %d bytes", max, n, len(block))
			}
			if block != "" && !strings.Contains(block, "tickets") {
				t.Errorf("max %d: the relay server is not named:\n%s", max, block)
			}
			if max >= abi.DefaultResumeBytes && (block == "" || n > 0 && !strings.Contains(block, fmt.Sprintf("TCK-%d", n-1))) {
				t.Errorf("max %d, %d responses: the newest response is not named:\n%s", max, n, block)
			}
			if strings.Contains(block, `"session_token"`) {
				t.Errorf("a title kept the token argument:\n%s", block)
			}
			if again := d.resumeBlock("compact"); again != "" {
				t.Errorf("a second block for the same compaction:\n%s", again)
			}
			if d.req.NowMS += blockAgain; block != "" && d.resumeBlock("compact") == "" {
				t.Errorf("no block for a later compaction")
			}
		}
	}
}

// TestResumeBlockRelay: the block names a relay server only while ctxhook
// holds its token, and says whether the token is live or kept from before
// the resume; a resume makes a held token unconfirmed, or drops it where
// the server's tokens die with its process.
func TestResumeBlockRelay(t *testing.T) {
	const live = "ctxhook adds the session token to every call of: "
	const kept = "ctxhook still holds a session token from before the resume for: "
	for _, tc := range []struct {
		name     string
		tokens   map[string]string
		onResume string
		why      string
		want     []string
		dropped  bool
	}{
		{"no token held", nil, "", "compact", nil, true},
		{"live after compaction", map[string]string{"tickets": "tok-1"}, "", "compact", []string{live + "tickets."}, false},
		{"kept across a resume", map[string]string{"tickets": "tok-1"}, "", "resume", []string{kept + "tickets."}, false},
		{"keep said", map[string]string{"tickets": "tok-1"}, abi.OnResumeKeep, "resume", []string{kept + "tickets."}, false},
		{"dropped by a resume", map[string]string{"tickets": "tok-1"}, abi.OnResumeDrop, "resume", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := sessionState{Tokens: tc.tokens, Searches: []string{"q"}}
			raw, _ := json.Marshal(st)
			d := &decision{req: abi.HandleRequest{Config: abi.Config{Servers: map[string]abi.ServerConfig{
				"tickets": {Relay: true, OnResume: tc.onResume}, "other": {Relay: true}}},
				State: map[string]string{"session/s": string(raw)}}, session: "s"}
			d.loadState()
			block := d.blockAt(tc.why)
			for _, w := range tc.want {
				if !strings.Contains(block, w) {
					t.Errorf("the block does not say %q:\n%s", w, block)
				}
			}
			if len(tc.want) == 0 && strings.Contains(block, "tickets") || strings.Contains(block, "other") {
				t.Errorf("the block names a server whose token ctxhook does not hold:\n%s", block)
			}
			if _, held := d.state.Tokens["tickets"]; held == tc.dropped {
				t.Errorf("token held %v after %s with on_resume %q", held, tc.why, tc.onResume)
			}
		})
	}
}

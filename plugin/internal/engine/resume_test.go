package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestResumeBlockBound: whatever the session holds, the block keeps to
// its bound, always names the relay servers, and is given once per change.
func TestResumeBlockBound(t *testing.T) {
	for _, max := range []int{300, 600, 1000, abi.DefaultResumeBytes, 4000} {
		for _, n := range []int{0, 1, 5, maxRecent} {
			var st sessionState
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

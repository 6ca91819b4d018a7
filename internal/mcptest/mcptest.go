// Package mcptest reads events back through a real `ctxhook mcp`
// process, as the model would, for tests in more than one package.
package mcptest

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FetchEvent runs cmd (a `ctxhook mcp`) and reads the event key names
// with get_event, page by page: its whole body, or "" and the error text
// when get_event cannot serve it.
func FetchEvent(t *testing.T, cmd *exec.Cmd, key string) (body, errText string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var b strings.Builder
	for offset := 0; ; {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_event",
			Arguments: map[string]any{"id": key, "offset": offset, "length": 262144}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			return "", res.Content[0].(*mcp.TextContent).Text
		}
		var page struct {
			Body       string `json:"body"`
			NextOffset int    `json:"next_offset"`
			TotalBytes int    `json:"total_bytes"`
		}
		raw, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(raw, &page)
		b.WriteString(page.Body)
		if page.NextOffset >= page.TotalBytes || page.NextOffset <= offset {
			return b.String(), ""
		}
		offset = page.NextOffset
	}
}

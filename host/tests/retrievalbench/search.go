package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctxhook/ctxhook/host/internal/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ctxhookSearch asks ctxhook mcp's search tool, as an agent's client
// does: the official SDK's client over its in-memory transport.
type ctxhookSearch struct {
	cs *mcp.ClientSession
}

func newCtxhookSearch(ctx context.Context, db string) (*ctxhookSearch, error) {
	srv := mcpserver.New(mcpserver.Options{DB: db, Version: "retrievalbench"})
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "retrievalbench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	return &ctxhookSearch{cs}, nil
}

func (s *ctxhookSearch) close() { s.cs.Close() }

// search is ctxhook's top 10 for query.
func (s *ctxhookSearch) search(query string) ([]result, error) {
	res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": query, "limit": 10}})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("search %q: tool error %v", query, res.Content)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out mcpserver.SearchOut
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	var hits []result
	for _, h := range out.Results {
		if h.Kind == "event" {
			hits = append(hits, result{id: h.ID, snippet: h.Snippet})
		}
	}
	return hits, nil
}

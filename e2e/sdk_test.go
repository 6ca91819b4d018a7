package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TypeScriptSDKVersion pins the official TypeScript MCP SDK the proxy is
// tested against.
const TypeScriptSDKVersion = "1.32.2"

// TestProxyTypeScriptSDKServer: the official Go SDK client talks through
// ctxhook proxy to a server built with the official TypeScript SDK, whose
// token lives in result _meta only. The client never sends a token.
func TestProxyTypeScriptSDKServer(t *testing.T) {
	requireE2E(t)
	if err := npmInstallErr("@modelcontextprotocol/sdk", TypeScriptSDKVersion, ""); err != nil {
		t.Fatal(err)
	}
	dir, _ := clientPath("@modelcontextprotocol/sdk", TypeScriptSDKVersion, "")
	script, err := os.ReadFile(filepath.Join(repoRoot(t), "e2e", "tsserver", "server.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// Next to its node_modules, so the ESM imports resolve.
	serverPath := filepath.Join(dir, "server.mjs")
	if err := os.WriteFile(serverPath, script, 0o644); err != nil {
		t.Fatal(err)
	}
	ctxhook, _ := binaries(t)
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "config"), 0o700)
	os.WriteFile(filepath.Join(home, "config", "config.toml"), []byte("[servers.tswf]\nrelay = true\nproxy = true\n"), 0o600)

	cmd := exec.Command(ctxhook, "proxy", "--name", "tswf", "--", "node", serverPath)
	cmd.Env = append(os.Environ(), "CTXHOOK_HOME="+home)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-client", Version: "1.0.0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	defer s.Close()
	if err := s.Ping(ctx, nil); err != nil {
		t.Fatalf("ping: %v", err)
	}
	for i, call := range append([]string{"start_session"}, "step", "step", "step", "step", "step") {
		r, err := s.CallTool(ctx, &mcp.CallToolParams{Name: call, Arguments: map[string]any{"n": i}})
		if err != nil || r.IsError {
			b, _ := json.Marshal(r)
			t.Fatalf("%s %d: %v %s\nproxy stderr: %s", call, i, err, b, stderr.String())
		}
		if b, _ := json.Marshal(r); strings.Contains(string(b), "wfs_") {
			t.Fatalf("%s %d: the client sees the token: %s", call, i, b)
		}
	}
	s.Close()
	out, errs, err := run(t, time.Minute, append(os.Environ(), "CTXHOOK_HOME="+home), "", nil, ctxhook, "search", "--json", "TS-CHECK-3")
	if err != nil || !strings.Contains(out, `"tool": "mcp__tswf__step"`) {
		t.Fatalf("search: %v %s %s", err, out, errs)
	}
}

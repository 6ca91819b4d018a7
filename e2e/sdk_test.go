package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
	out, errs, err := searchFor(t, append(os.Environ(), "CTXHOOK_HOME="+home), "", ctxhook, `"tool": "mcp__tswf__step"`, "TS-CHECK-3")
	if err != nil || !strings.Contains(out, `"tool": "mcp__tswf__step"`) {
		t.Fatalf("search: %v %s %s", err, out, errs)
	}
}

// TestMCPServerTypeScriptSDKClient: the official TypeScript SDK client
// checks `ctxhook mcp`: tool schemas, metadata on every answer (the SDK
// itself validates structuredContent against each outputSchema), paging,
// keys, the cache, and the error paths.
func TestMCPServerTypeScriptSDKClient(t *testing.T) {
	requireE2E(t)
	if err := npmInstallErr("@modelcontextprotocol/sdk", TypeScriptSDKVersion, ""); err != nil {
		t.Fatal(err)
	}
	dir, _ := clientPath("@modelcontextprotocol/sdk", TypeScriptSDKVersion, "")
	script, err := os.ReadFile(filepath.Join(repoRoot(t), "e2e", "tsserver", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	clientPath := filepath.Join(dir, "client.mjs")
	os.WriteFile(clientPath, script, 0o644)
	ctxhook, _ := binaries(t)
	home := t.TempDir()
	env := append(os.Environ(), "CTXHOOK_HOME="+home)
	// Two captured events, through the same path every host uses.
	effects := `[{"op":"store_event","event":{"ts_ms":` + strconv.FormatInt(time.Now().UnixMilli(), 10) + `,"session":"s1","harness":"claude-code",
		"hook_event":"PostToolUse","category":"mcp","tool":"mcp__tickets__get_ticket","server":"tickets","key":"e00000000000000c1",
		"args":"{\"id\":\"CVX-5909\"}","response":"x","text":"Ticket CVX-5909: retryPolicyForGateway misconfigured, checkout fails with 502s for every region","response_bytes":120}},
		{"op":"store_event","event":{"ts_ms":` + strconv.FormatInt(time.Now().UnixMilli(), 10) + `,"session":"s1","harness":"claude-code",
		"hook_event":"UserPromptSubmit","category":"prompt","response":"look at the failing checkout","response_bytes":28}}]`
	if out, errs, err := run(t, time.Minute, env, "", []byte(effects), ctxhook, "io", "apply"); err != nil || !strings.Contains(out, `"event_ids":[1,2]`) {
		t.Fatalf("seed: %v %s %s", err, out, errs)
	}
	out, errs, err := run(t, time.Minute, env, dir, nil, "node", clientPath, ctxhook)
	if err != nil {
		t.Fatalf("ts client: %v\n%s\n%s", err, out, errs)
	}
	var res struct {
		OK       bool
		Checks   int
		Failures []string
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &res); err != nil {
		t.Fatalf("ts client output %q: %v\n%s", out, err, errs)
	}
	for _, f := range res.Failures {
		t.Error(f)
	}
	if res.Checks < 60 {
		t.Errorf("only %d checks ran", res.Checks)
	}
}

package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/internal/testdir"
)

// TestHookScript: the script runs the hook client next to ctxhook when
// there is one (it takes <harness> <event>, no "hook" word), else ctxhook
// itself with `hook`; a project's names ctxhook by name.
func TestHookScript(t *testing.T) {
	h, ok := Lookup("cline")
	if !ok {
		t.Fatal("no harness cline")
	}
	dir := testdir.New(t) // t.TempDir's cleanup fails under Wine
	exe := filepath.Join(dir, "ctxhook")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	if got, want := lastLine(HookScript(h, exe, "PostToolUse")), "exec "+exe+" hook cline PostToolUse"; got != want {
		t.Errorf("without a hook client: %q, want %q", got, want)
	}
	client := filepath.Join(dir, "ctxhook-hook"+exeSuffix) // as HookClient looks for it on this OS
	os.WriteFile(client, []byte("#!/bin/sh\n"), 0o755)
	if got, want := lastLine(HookScript(h, exe, "PostToolUse")), "exec "+client+" cline PostToolUse"; got != want {
		t.Errorf("with a hook client: %q, want %q", got, want)
	}
	if got, want := lastLine(HookScript(h, PortableExe, "TaskStart")), "exec ctxhook hook cline TaskStart"; got != want {
		t.Errorf("a project's: %q, want %q", got, want)
	}
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/install"
	"github.com/ctxhook/ctxhook/host/internal/state"
	"github.com/ctxhook/ctxhook/host/internal/transcripts"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// quietFor: a transcript untouched this long is taken as finished, so its
// last turn is indexed too.
const quietFor = 5 * time.Minute

// runIndex is `ctxhook index`: bring session transcripts into the store.
func runIndex(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "index", "[--format claude-code|codex] [file.jsonl...]",
		"Index agent session transcripts (Claude Code's ~/.claude/projects, Codex CLI's ~/.codex/sessions) into the store,\n"+
			"incrementally: only what was appended since the last run is read. Hooks do this at SessionStart and Stop.")
	format := flags.String("format", "", "the files' format when naming files (default: from the path)")
	pos, code, ok := parse(flags, args)
	if !ok {
		return code
	}
	if *format != "" && *format != abi.HarnessClaudeCode && *format != abi.HarnessCodex {
		return usageError(env, "index", "--format must be claude-code or codex, not %q", *format)
	}
	p, err := resolvePaths(env)
	if err != nil {
		return fail(env, "%v", err)
	}
	var jobs []transcripts.Job
	if len(pos) == 0 {
		home := install.Home(env.Getenv)
		claudeDir := filepath.Join(home, ".claude")
		if d := env.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
			claudeDir = d
		}
		codexHome := filepath.Join(home, ".codex")
		if d := env.Getenv("CODEX_HOME"); d != "" {
			codexHome = d
		}
		jobs = transcripts.Find(claudeDir, codexHome)
		if len(jobs) == 0 {
			fmt.Fprintf(env.Stdout, "No transcripts under %s or %s.\n", filepath.Join(claudeDir, "projects"), filepath.Join(codexHome, "sessions"))
			return 0
		}
	}
	missing := 0
	for _, f := range pos {
		abs, _ := filepath.Abs(f)
		if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
			why := "not a regular file"
			if err != nil {
				why = errors.Unwrap(err).Error()
			}
			fmt.Fprintf(env.Stderr, "ctxhook: index: %s: %s\n", f, why)
			missing++
			continue
		}
		fm := *format
		if fm == "" {
			fm = sniffFormat(abs)
		}
		jobs = append(jobs, transcripts.Job{Path: abs, Format: fm})
	}
	if len(jobs) == 0 {
		return 1
	}
	r, err := runner.New(ctx, runner.Options{CacheDir: p.WasmCache()})
	if err != nil {
		return fail(env, "%v", err)
	}
	defer r.Close(ctx)
	st, err := store.Open(p.DB(), store.Options{})
	if err != nil {
		return fail(env, "%v", err)
	}
	defer st.Close()
	cfg, err := config.Load(p.Config)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ctxhook: %v\n", err)
	}
	sd, sdErr := state.Open(p.StateDir())
	readState := func(keys []string) (map[string]string, error) {
		if sdErr != nil {
			return nil, sdErr
		}
		return sd.Read(keys)
	}
	total, failed, waiting := 0, missing, 0
	for i, j := range jobs {
		if fi, err := os.Stat(j.Path); err == nil {
			j.Final = time.Since(fi.ModTime()) > quietFor
		}
		res, err := transcripts.Index(ctx, r, st, cfg, readState, j, 0)
		if err != nil {
			failed++
			fmt.Fprintf(env.Stderr, "ctxhook: %s: %v\n", j.Path, err)
			continue
		}
		total += res.Chunks
		if res.Chunks > 0 {
			fmt.Fprintf(env.Stdout, "[%d/%d] %s: %d turns (%d KB)\n", i+1, len(jobs), j.Path, res.Chunks, res.Bytes>>10)
		}
		if off, err := st.TranscriptOffset(j.Path); err == nil && !j.Final && off < fileSize(j.Path) {
			// A session still running: its last turn may not be over.
			waiting++
			if len(pos) > 0 {
				fmt.Fprintf(env.Stdout, "[%d/%d] %s: its last turn waits: written to in the last %d minutes, the session may still run; its Stop hook indexes it\n", i+1, len(jobs), j.Path, int(quietFor.Minutes()))
			}
		}
	}
	n, _ := st.ChunkCount()
	fmt.Fprintf(env.Stdout, "Indexed %s from %s; %s in the store. Search them with 'ctxhook search'.\n",
		plural(int64(total), "new turn", "new turns"), plural(int64(len(jobs)), "transcript", "transcripts"), plural(n, "turn", "turns"))
	if waiting > 0 && len(pos) == 0 {
		fmt.Fprintf(env.Stdout, "The last turn of %s waits: written to in the last %d minutes, the session may still run. Its Stop hook indexes it, or 'ctxhook index' once it is quiet.\n",
			plural(int64(waiting), "transcript", "transcripts"), int(quietFor.Minutes()))
	}
	if failed > 0 {
		return 1
	}
	return 0
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// sniffFormat tells a Codex rollout (its first line is session_meta) from
// a Claude Code transcript.
func sniffFormat(path string) string {
	if strings.Contains(path, "/.codex/") || strings.HasPrefix(filepath.Base(path), "rollout-") {
		return abi.HarnessCodex
	}
	f, err := os.Open(path)
	if err != nil {
		return abi.HarnessClaudeCode
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := f.Read(head)
	first, _, _ := strings.Cut(string(head[:n]), "\n")
	if strings.Contains(first, `"type":"session_meta"`) || strings.Contains(first, `"type": "session_meta"`) {
		return abi.HarnessCodex
	}
	return abi.HarnessClaudeCode
}

package transcripts

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/platform"
)

// Source is where one harness keeps its session history on disk: the
// files under Dir whose name Match accepts, in Format.
type Source struct {
	Harness, Format, Dir string
	Match                func(name string) bool
	// DB: Dir is a database of OpenCode's kind, each session a job.
	DB bool
}

func jsonl(name string) bool { return strings.HasSuffix(name, ".jsonl") }

// Sources lists where each harness that writes history keeps it, honouring
// the variables the harnesses themselves read to move it.
func Sources(home string, getenv func(string) string) []Source {
	dir := func(env, def string) string {
		if d := getenv(env); d != "" {
			return d
		}
		return filepath.Join(home, def)
	}
	data := getenv("XDG_DATA_HOME")
	if data == "" {
		data = filepath.Join(home, ".local", "share")
	}
	return []Source{
		{Harness: "claude-code", Format: "claude-code", Dir: filepath.Join(dir("CLAUDE_CONFIG_DIR", ".claude"), "projects"), Match: jsonl},
		{Harness: "codex", Format: "codex", Dir: filepath.Join(dir("CODEX_HOME", ".codex"), "sessions"), Match: jsonl},
		{Harness: "copilot", Format: "copilot", Dir: filepath.Join(dir("COPILOT_HOME", ".copilot"), "session-state"), Match: func(n string) bool { return n == "events.jsonl" }},
		{Harness: "droid", Format: "droid", Dir: filepath.Join(home, ".factory", "sessions"), Match: jsonl},
		{Harness: "opencode", Format: "opencode", Dir: filepath.Join(data, "opencode", "opencode.db"), DB: true},
		{Harness: "kilo", Format: "kilo", Dir: filepath.Join(data, "kilo", "kilo.db"), DB: true},
		{Harness: "qwen", Format: "qwen", Dir: filepath.Join(home, ".qwen", "projects"), Match: jsonl},
		{Harness: "pi", Format: "pi", Dir: filepath.Join(dir("PI_CODING_AGENT_DIR", filepath.Join(".pi", "agent")), "sessions"), Match: jsonl},
		{Harness: "gemini", Format: "gemini", Dir: filepath.Join(dir("GEMINI_CLI_HOME", ""), ".gemini", "tmp"), Match: func(n string) bool { return strings.HasPrefix(n, "session-") && jsonl(n) }},
	}
}

// Find lists the history files of every source. It never follows a
// symbolic link (a link in a history directory may point anywhere) and
// skips files another user owns or may write: history is read as the
// user's own words, and nobody else may put words there. skipped gets
// each file left out, with the reason.
func Find(srcs []Source, skipped func(path, why string)) []Job {
	var jobs []Job
	for _, s := range srcs {
		if s.DB {
			jobs = append(jobs, dbJobs(s, skipped)...)
			continue
		}
		filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !s.Match(d.Name()) {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				skipped(p, "a symbolic link")
				return nil
			}
			if err := platform.OwnedFile(p); err != nil {
				skipped(p, err.Error())
				return nil
			}
			if d.Type().IsRegular() {
				jobs = append(jobs, Job{Path: p, Format: s.Format})
			}
			return nil
		})
	}
	return jobs
}

// Quiet: a source untouched this long is taken as finished, so its last
// turn is indexed too.
const Quiet = 5 * time.Minute

// dbJobs lists the sessions of a database source; a database that is not
// there is no error.
func dbJobs(s Source, skipped func(path, why string)) []Job {
	if _, err := os.Lstat(s.Dir); err != nil {
		return nil
	}
	if err := platform.OwnedFile(s.Dir); err != nil {
		skipped(s.Dir, err.Error())
		return nil
	}
	jobs, err := DBJobs(s.Dir, s.Format, Quiet)
	if err != nil {
		skipped(s.Dir, err.Error())
	}
	return jobs
}

// FormatOf guesses a named file's format from where it lies and, for the
// two whose paths say little, its first line.
func FormatOf(path string) string {
	slash := filepath.ToSlash(path)
	switch {
	case strings.Contains(slash, "/.codex/") || strings.HasPrefix(filepath.Base(path), "rollout-"):
		return "codex"
	case strings.Contains(slash, "/session-state/") && filepath.Base(path) == "events.jsonl":
		return "copilot"
	case strings.Contains(slash, "/.factory/"):
		return "droid"
	case strings.Contains(slash, "/.gemini/"):
		return "gemini"
	case strings.Contains(slash, "/.qwen/"):
		return "qwen"
	case strings.Contains(slash, "/.pi/"):
		return "pi"
	}
	f, err := os.Open(path)
	if err != nil {
		return "claude-code"
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := f.Read(head)
	first, _, _ := strings.Cut(string(head[:n]), "\n")
	switch {
	case strings.Contains(first, `"type":"session_meta"`) || strings.Contains(first, `"type": "session_meta"`):
		return "codex"
	case strings.Contains(first, `"type":"session.start"`):
		return "copilot"
	case strings.Contains(first, `"type":"session_start"`):
		return "droid"
	case strings.Contains(first, `"type":"session","version"`):
		return "pi"
	case strings.Contains(first, `"projectHash"`):
		return "gemini"
	case strings.Contains(first, `"provenance"`):
		return "qwen"
	}
	return "claude-code"
}

// FileFormats are the formats of the sources that are files, in the
// order Sources lists them: what `ctxhook index --format` accepts for
// files named on its command line.
func FileFormats() []string {
	var out []string
	for _, s := range Sources("", func(string) string { return "" }) {
		if !s.DB {
			out = append(out, s.Format)
		}
	}
	return out
}

// Package cli implements ctxhook's commands. Each command lives in its own
// file, takes its streams and environment as arguments, and returns an exit
// code, so tests run commands in-process and check all three.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/ctxhook/ctxhook/host/internal/paths"
)

// IO is the standard streams of a command.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Env is a command's environment.
type Env struct {
	IO
	Getenv func(string) string
}

type command struct {
	name, args, summary string
	run                 func(ctx context.Context, env Env, args []string) int
}

var commands []command

func init() {
	commands = []command{
		{"hook", "<harness> <event>", "run as a harness hook (reads the payload on stdin)", runHook},
		{"proxy", "--name NAME -- command...", "stand in for an MCP server: relay its token, record its results", runProxy},
		{"mcp", "", "serve ctxhook's MCP tools to the agent (stdio)", runMCP},
		{"daemon", "[--idle 10m]", "keep plugin instances warm for hooks (started by ctxhook-hook)", runDaemon},
		{"index", "[file.jsonl...]", "index session transcripts (Claude Code, Codex CLI)", runIndex},
		{"search", "[flags] <query>", "full-text search over captured events", runSearch},
		{"show", "[--json] <id>", "print one captured event in full", runShow},
		{"stats", "[--session ID | --all] [--json]", "summarise a session", runStats},
		{"purge", "[--session ID] [--server NAME] [--older-than AGE] [--all] [--dry-run]", "delete captured events for good", runPurge},
		{"install", "<harness> [--user|--project] [--dry-run]", "wire ctxhook's hooks into a harness", runInstall},
		{"uninstall", "<harness> [--user|--project] [--dry-run]", "remove exactly what install added", runUninstall},
		{"doctor", "<harness>", "check what is wired and what is not", runDoctor},
		{"io", "load <key>... | apply | socket", "state and store access for in-process hosts (JS loaders)", runIO},
		{"demo", "[--keep]", "replay a bundled recorded session through the real hooks", runDemo},
		{"version", "", "print version information", runVersion},
	}
}

// Main runs ctxhook with args (without the program name).
func Main(args []string, stdio IO, getenv func(string) string) int {
	env := Env{IO: stdio, Getenv: getenv}
	if len(args) == 0 {
		usage(env.Stdout)
		return 2
	}
	switch args[0] {
	case "--version", "-version", "-V":
		args = []string{"version"}
	case "-h", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			// help <command> is <command> --help.
			args = []string{args[1], "--help"}
			break
		}
		usage(env.Stdout)
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(context.Background(), env, args[1:])
		}
	}
	fmt.Fprintf(env.Stderr, "ctxhook: unknown command %q", args[0])
	if near := nearest(args[0]); near != "" {
		fmt.Fprintf(env.Stderr, "; did you mean %q?", near)
	}
	fmt.Fprintln(env.Stderr, " (ctxhook --help lists the commands)")
	return 2
}

// nearest is the command a typo most likely meant: one within two edits,
// or one the typed word starts (a prefix of three letters or more).
func nearest(typed string) string {
	best, bestD := "", 3
	for _, c := range commands {
		if len(typed) >= 3 && strings.HasPrefix(c.name, typed) {
			return c.name
		}
		if d := editDistance(typed, c.name); d < bestD {
			best, bestD = c.name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "ctxhook: token relay, capture and search for AI coding agents' MCP calls")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range commands {
		fmt.Fprintf(w, "  ctxhook %-9s %-44s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintln(w, "\nFiles: data in $XDG_STATE_HOME/ctxhook, config in $XDG_CONFIG_HOME/ctxhook/config.toml;")
	fmt.Fprintln(w, "CTXHOOK_HOME moves both. Run 'ctxhook <command> --help' for a command's flags.")
}

// newFlags returns a FlagSet that prints its usage to env.Stderr.
func newFlags(env Env, name, args, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "Usage: ctxhook %s %s\n\n%s\n", name, args, summary)
		if hasFlags(fs) {
			fmt.Fprintln(env.Stderr, "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parse parses flags anywhere among args (flag stops at the first
// positional argument; users type `search foo --limit 3` too).
func parse(fs *flag.FlagSet, args []string) ([]string, int, bool) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0, false
			}
			return nil, 2, false
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, 0, true
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func resolvePaths(env Env) (paths.Paths, error) {
	return paths.Resolve(env.Getenv)
}

func fail(env Env, format string, a ...any) int {
	fmt.Fprintf(env.Stderr, "ctxhook: "+format+"\n", a...)
	return 1
}

// Version is the module version, or "devel" in a source build.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func executable() string {
	exe, err := os.Executable()
	if err != nil {
		return "ctxhook"
	}
	return exe
}

func shortID(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

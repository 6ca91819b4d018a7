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
	"io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/internal/version"
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
	group, name, args, summary string
	run                        func(ctx context.Context, env Env, args []string) int
}

// The groups of the usage, in its order: what a user types first, what
// the agent's configuration runs, and what ctxhook runs itself.
const (
	groupStore      = "Search what was captured"
	groupSetup      = "Set up"
	groupRunByAgent = "Run by the agent's configuration"
	groupInternal   = "Internal (run by ctxhook itself)"
)

var commands []command

func init() {
	commands = []command{
		{groupStore, "search", "[flags] <query>", "full-text search over captured events", runSearch},
		{groupStore, "show", "[--json] <id>", "print one captured event in full", runShow},
		{groupStore, "stats", "[--session ID | --all] [--json]", "summarise a session", runStats},
		{groupStore, "statusline", "[--session ID]", "the session's figures in one line (Claude Code's status line)", runStatusline},
		{groupStore, "index", "[file.jsonl...]", "index session transcripts (Claude Code, Codex CLI)", runIndex},
		{groupStore, "purge", "<--session|--server|--older-than|--all> ...", "delete captured events for good", runPurge},
		{groupSetup, "install", "<harness> [--user|--project] [--dry-run]", "wire ctxhook's hooks into a harness", runInstall},
		{groupSetup, "uninstall", "<harness> [--user|--project] [--dry-run]", "remove exactly what install added", runUninstall},
		{groupSetup, "store", "<init|add-user|ship|status|search|migrate> ...", "the shared store on PostgreSQL (a team's, or your machines')", runStore},
		{groupSetup, "doctor", "<harness>", "check what is wired and what is not", runDoctor},
		{groupSetup, "demo", "[--keep]", "replay a bundled recorded session through the real hooks", runDemo},
		{groupSetup, "version", "", "print version information", runVersion},
		{groupRunByAgent, "hook", "<harness> <event>", "run as a harness hook (reads the payload on stdin)", runHook},
		{groupRunByAgent, "mcp", "", "serve ctxhook's MCP tools to the agent (stdio)", runMCP},
		{groupRunByAgent, "proxy", "--name NAME -- command...", "stand in for an MCP server: relay its token, record its results", runProxy},
		{groupInternal, "daemon", "[--idle 10m]", "keep plugin instances warm for hooks (started by ctxhook-hook)", runDaemon},
		{groupInternal, "io", "load <key>... | apply | socket", "state and store access for in-process hosts (JS loaders)", runIO},
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
	case "--version", "-version", "-V", "-v":
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
	fmt.Fprintln(w, "\nUsage: ctxhook <command> [flags] [args]")
	group := ""
	for _, c := range commands {
		if c.group != group {
			group = c.group
			fmt.Fprintf(w, "\n%s:\n", group)
		}
		fmt.Fprintf(w, "  %-10s %-44s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintln(w, "\nFiles: data in $XDG_STATE_HOME/ctxhook, config in $XDG_CONFIG_HOME/ctxhook/config.toml,")
	fmt.Fprintln(w, "cache in the user cache directory. CTXHOOK_HOME moves all three (state/, cache/, config/ under it).")
	fmt.Fprintln(w, "'ctxhook help <command>' shows a command's flags.")
}

// newFlags returns a FlagSet for a command. Its help (-h, --help) goes
// to stdout, as a help that was asked for does; a flag error goes to
// stderr in one line with where to look, and is a usage error (exit 2).
func newFlags(env Env, name, args, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	out := &flagOut{env: env}
	fs.SetOutput(out)
	fs.Usage = func() {
		out.help.Reset()
		fmt.Fprintf(&out.help, "Usage: ctxhook %s %s\n\n%s\n", name, args, summary)
		if hasFlags(fs) {
			fmt.Fprintln(&out.help, "\nFlags:")
			printFlags(&out.help, fs)
		}
	}
	return fs
}

// flagOut takes what package flag writes, so that parse decides where it
// goes: the error line flag writes before calling Usage is dropped, and
// parse writes its own.
type flagOut struct {
	env  Env
	help strings.Builder
}

func (o *flagOut) Write(p []byte) (int, error) { return len(p), nil }

// printFlags lists fs's flags spelled as users type them (--limit, not
// -limit; both parse).
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		kind, usage := flag.UnquoteUsage(unwrapped(f))
		name := "--" + f.Name
		if kind != "" {
			name += " " + kind
		}
		line := fmt.Sprintf("  %-22s %s", name, usage)
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			line += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintln(w, line)
	})
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parse parses flags anywhere among args (flag stops at the first
// positional argument; users type `search foo --limit 3` too). It returns
// the positional arguments, and ok false with the exit code when the
// command should stop: 0 after --help, 2 after a flag error. A flag given
// twice is an error unless it is a list (package flag keeps the last
// value, so `purge --session a --session b` would purge b alone).
func parse(fs *flag.FlagSet, args []string) ([]string, int, bool) {
	var pos []string
	out, _ := fs.Output().(*flagOut)
	onlyOnce(fs)
	for {
		if err := fs.Parse(args); err != nil {
			if out == nil {
				return nil, 2, false
			}
			if errors.Is(err, flag.ErrHelp) {
				io.WriteString(out.env.Stdout, out.help.String())
				return nil, 0, false
			}
			return nil, usageError(out.env, fs.Name(), "%s", flagError(err)), false
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, 0, true
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// flagError spells package flag's errors with flags as users type them
// (--session, never -session).
func flagError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag --" + strings.TrimPrefix(name, "-")
	}
	if m := twice.FindStringSubmatch(msg); m != nil {
		return "--" + m[1] + " given more than once: it takes one value"
	}
	return singleDash.ReplaceAllString(msg, "$1--$2")
}

// twice is once's refusal as package flag reports it.
var twice = regexp.MustCompile(`for flag -([a-z][a-z0-9-]*): given more than once`)

// singleDash is a flag named with one dash in package flag's messages
// ("needs an argument: -session", "for flag -limit", "for -json").
var singleDash = regexp.MustCompile(`(^|[ :])-([a-z][a-z0-9-]*)`)

// list marks a flag.Value that may be given more than once (--header).
type list interface{ repeatable() }

// once refuses a second value for a flag that keeps one.
type once struct {
	flag.Value
	set bool
}

func (o *once) Set(v string) error {
	if o.set {
		return errors.New("given more than once: give it once")
	}
	o.set = true
	return o.Value.Set(v)
}

// onceBool is once for a boolean flag, which takes no argument.
type onceBool struct{ once }

func (o *onceBool) IsBoolFlag() bool { return true }

// unwrapped is f with the value once wraps, which package flag reads to
// name the kind of argument (string, int, none for a boolean).
func unwrapped(f *flag.Flag) *flag.Flag {
	c := *f
	switch v := f.Value.(type) {
	case *once:
		c.Value = v.Value
	case *onceBool:
		c.Value = v.Value
	}
	return &c
}

// onlyOnce wraps every flag of fs that is not a list in once, the first
// time fs is parsed.
func onlyOnce(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		switch f.Value.(type) {
		case list, *once, *onceBool:
			return
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			f.Value = &onceBool{once{Value: f.Value}}
			return
		}
		f.Value = &once{Value: f.Value}
	})
}

// usageError reports a command used wrongly: what was wrong, and where
// the command's help is, in one line. Exit 2, as for every usage error.
func usageError(env Env, cmd, format string, a ...any) int {
	fmt.Fprintf(env.Stderr, "ctxhook: %s: %s (see ctxhook %s --help)\n", cmd, fmt.Sprintf(format, a...), cmd)
	return 2
}

func resolvePaths(env Env) (paths.Paths, error) {
	return paths.Resolve(env.Getenv)
}

func fail(env Env, format string, a ...any) int {
	msg := fmt.Sprintf(format, a...)
	if step := nextStep(msg, a); step != "" {
		msg = strings.TrimSuffix(msg, ".") + ". " + step
	}
	fmt.Fprintf(env.Stderr, "ctxhook: %s\n", msg)
	return 1
}

// nextStep is what to do about a failure, for a message that does not
// say already: every error a user sees ends with a next step.
func nextStep(msg string, args []any) string {
	if strings.Contains(msg, "'ctxhook ") || strings.Contains(msg, "--help") {
		return ""
	}
	var err error
	for _, a := range args {
		if e, ok := a.(error); ok {
			err = e
		}
	}
	lower := strings.ToLower(msg)
	switch {
	case strings.Contains(lower, "malformed") || strings.Contains(lower, "not a database") || strings.Contains(lower, "integrity"):
		return "The store is damaged: move ctxhook.db (and its -wal, -shm) aside and the next hook starts a new one; 'ctxhook doctor <harness>' checks it"
	case strings.Contains(lower, "not this user") || strings.Contains(lower, "refus") || strings.Contains(lower, "writable by") ||
		err != nil && errors.Is(err, fs.ErrPermission):
		return "Give that path to your user alone (chown, chmod 700), or point CTXHOOK_HOME at a directory of your own; 'ctxhook doctor <harness>' lists such problems"
	case strings.HasPrefix(msg, "config:"):
		return "Fix the line it names in config.toml ('ctxhook doctor <harness>' shows the file and what applies)"
	case strings.Contains(lower, "locked") || strings.Contains(lower, "busy"):
		return "Another ctxhook process holds the store: try again in a moment"
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return "Check the path; 'ctxhook doctor <harness>' shows where ctxhook keeps its files"
	}
	return "'ctxhook doctor <harness>' checks the setup"
}

// Version is ctxhook's version and the commit it was built from.
func Version() string { return version.Number + " (" + version.Commit() + ")" }

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

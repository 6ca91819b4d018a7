package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/install"
	"github.com/ctxhook/ctxhook/host/internal/ownsecrets"
	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/host/internal/state"
	"github.com/ctxhook/ctxhook/host/internal/transcripts"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// quietFor: a transcript untouched this long is taken as finished, so its
// last turn is indexed too.
const quietFor = 5 * time.Minute

// indexFormats are the formats --format accepts.
var indexFormats = transcripts.FileFormats()

// indexRun is one `ctxhook index`: what it was asked, and what it opened.
type indexRun struct {
	env       Env
	named     bool // files named on the command line
	jobs      []transcripts.Job
	compiled  *runner.Compiled
	r         *runner.Runner
	st        *store.Store
	cfg       abi.Config
	readState transcripts.StateReader
	known     []string // every session's relay tokens, redacted in every job
	starts    []int64  // each job's stored offset before this run
}

// runIndex is `ctxhook index`: bring session transcripts into the store.
func runIndex(ctx context.Context, env Env, args []string) int {
	flags := newFlags(env, "index", "[--all] [--format FORMAT] [file...]",
		"Index agents' session history into the store: Claude Code, Codex CLI, Copilot CLI, Droid and Gemini CLI\n"+
			"(where each keeps it: see docs/transcripts.md), incrementally: only what was written since the last run is read.\n"+
			"Without files (or with --all) every harness's history is read, that from before install too, with progress on stderr.")
	flags.Bool("all", false, "read every harness's history (the default without files)")
	format := flags.String("format", "", "the files' format when naming files (default: from the path): "+fmt.Sprint(indexFormats))
	pos, code, ok := parse(flags, args)
	if !ok {
		return code
	}
	if *format != "" && !slices.Contains(indexFormats, *format) {
		return usageError(env, "index", "--format must be one of %v, not %q", indexFormats, *format)
	}
	run := &indexRun{env: env, named: len(pos) > 0}
	failed := 0
	if run.named {
		failed = run.nameFiles(pos, *format)
	} else if run.findAll() {
		return 0
	}
	if len(run.jobs) == 0 {
		return 1
	}
	// The guest's memory is freed only when its instance is replaced
	// (renew), the host's only when collected: a soft limit has the Go
	// runtime collect and give memory back before a large history's
	// passes pile up (peak RSS 345 against MB on a 100 MB transcript).
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(indexMemoryLimit))
	if code := run.open(ctx); code != 0 {
		return code
	}
	defer run.close(ctx)
	defer run.st.Close()
	if run.indexAll(ctx)+failed > 0 {
		return 1
	}
	return 0
}

// findAll lists every harness's history; true when there is none.
func (x *indexRun) findAll() (none bool) {
	env := x.env
	srcs := transcripts.Sources(install.Home(env.Getenv), env.Getenv)
	x.jobs = transcripts.Find(srcs, func(path, why string) {
		// %q: a file name may hold control characters meant for the terminal.
		fmt.Fprintf(env.Stderr, "ctxhook: index: skipping %q: %s\n", path, why)
	})
	if len(x.jobs) > 0 {
		return false
	}
	fmt.Fprintf(env.Stdout, "No session history found under:\n")
	for _, s := range srcs {
		fmt.Fprintf(env.Stdout, "  %s (%s)\n", s.Dir, s.Harness)
	}
	return true
}

// nameFiles adds the files named on the command line; it returns how many
// could not be.
func (x *indexRun) nameFiles(pos []string, format string) (missing int) {
	for _, f := range pos {
		abs, _ := filepath.Abs(f)
		if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
			why := "not a regular file"
			if err != nil {
				why = errors.Unwrap(err).Error()
			}
			fmt.Fprintf(x.env.Stderr, "ctxhook: index: %s: %s\n", f, why)
			missing++
			continue
		}
		fm := format
		if fm == "" {
			fm = transcripts.FormatOf(abs)
		}
		x.jobs = append(x.jobs, transcripts.Job{Path: abs, Format: fm})
	}
	return missing
}

// open starts the plugin and opens the store, config and state.
func (x *indexRun) open(ctx context.Context) int {
	p, err := resolvePaths(x.env)
	if err != nil {
		return fail(x.env, "%v", err)
	}
	// Without cancellation checks plugin calls run about 5x faster (on a
	// generated history, 9.7 against 55 s of CPU for 35 MB); a watchdog
	// bounds each pass instead (watch).
	o := runner.Options{CacheDir: p.WasmCache(), NoInterrupt: true}
	if x.compiled, err = runner.Compile(ctx, o); err != nil {
		return fail(x.env, "%v", err)
	}
	if x.r, err = x.compiled.Instance(ctx); err != nil {
		x.compiled.Close(ctx)
		return fail(x.env, "%v", err)
	}
	if x.st, err = store.Open(p.DB(), store.Options{}); err != nil {
		x.close(ctx)
		return fail(x.env, "%v", err)
	}
	if x.cfg, err = config.Load(p.Config); err != nil {
		fmt.Fprintf(x.env.Stderr, "ctxhook: %v\n", err)
	}
	sd, sdErr := state.Open(p.StateDir())
	x.known = ownsecrets.Gather(p, ownsecrets.Index, x.env.Getenv)
	x.readState = func(keys []string) (map[string]string, error) {
		if sdErr != nil {
			return nil, sdErr
		}
		return sd.Read(keys)
	}
	return 0
}

// indexCallTimeout bounds one plugin call of ctxhook index (with a second
// per MiB, runner.CallTimeoutFor), and indexPass one pass: the plugin
// decodes and redacts a pass in one call, whose time and guest memory
// grow with it (a MiB took 0.4 s to decode and more to redact, measured
// on a loaded machine with interruptible calls).
var indexCallTimeout = 30 * time.Second // tests lower it

const indexPass = 256 << 10

// indexMemoryLimit is the Go runtime's soft memory limit during an index
// run (runtime/debug.SetMemoryLimit).
const indexMemoryLimit = 96 << 20

// indexMaxGuest: an instance whose memory grew past this is replaced
// after its pass (guest memory never shrinks; a long run would keep its
// high-water mark for every later pass: 171 MB through a 100 MB
// transcript of long turns, when replaced only between files).
const indexMaxGuest = 64 << 20

// renew replaces a plugin instance a failed call left unusable, so one bad
// history does not stop the others, and one that grew large.
func (x *indexRun) renew(ctx context.Context) {
	if x.r.Broken() == nil && x.r.MemoryBytes() < indexMaxGuest {
		return
	}
	x.r.Close(ctx)
	r, err := x.compiled.Instance(ctx)
	if err != nil {
		fmt.Fprintf(x.env.Stderr, "ctxhook: %v\n", err)
		return
	}
	x.r = r
}

func (x *indexRun) close(ctx context.Context) {
	x.r.Close(ctx)
	x.compiled.Close(ctx)
}

// indexAll indexes every job, with progress, and reports; it returns how
// many failed.
func (x *indexRun) indexAll(ctx context.Context) (failed int) {
	env := x.env
	prog := newProgress(env.Stderr, x.pending(), len(x.jobs), time.Now())
	total, waiting := 0, 0
	for i, j := range x.jobs {
		if fi, err := os.Stat(j.Path); err == nil {
			j.Final = time.Since(fi.ModTime()) > quietFor
		}
		j.Pass, j.Known, j.Watch = indexPass, x.known, watch
		j.Renew = func(*runner.Runner) *runner.Runner { x.renew(ctx); return x.r }
		res, err := transcripts.Index(ctx, x.r, x.st, x.cfg, x.readState, j, 0)
		prog.done(i+1, max(0, fileSize(j.Path)-x.starts[i]))
		if err != nil {
			failed++
			fmt.Fprintf(env.Stderr, "ctxhook: %s: %v\n", j.Path, err)
			continue
		}
		total += res.Chunks
		if res.Chunks > 0 && x.named {
			fmt.Fprintf(env.Stdout, "[%d/%d] %s: %d turns (%d KB)\n", i+1, len(x.jobs), j.Path, res.Chunks, res.Bytes>>10)
		}
		if off, err := x.st.TranscriptOffset(j.Path); err == nil && !j.Final && off < fileSize(j.Path) {
			waiting++ // a session still running: its last turn may not be over
			if x.named {
				fmt.Fprintf(env.Stdout, "[%d/%d] %s: its last turn waits: written to in the last %d minutes, the session may still run; its Stop hook indexes it\n", i+1, len(x.jobs), j.Path, int(quietFor.Minutes()))
			}
		}
	}
	prog.finish()
	x.report(total, waiting)
	return failed
}

// watch arms the watchdog over a pass's two plugin calls, which nothing
// else can stop (runner.Options.NoInterrupt): a call that overruns its
// bound, far beyond any a sound plugin needs, ends the run (SIGTERM).
// What was indexed before it stays, and nothing is stored twice.
func watch(n int) (done func()) {
	return platform.ArmWatchdog(2*runner.CallTimeoutFor(indexCallTimeout, n), func() {})
}

// pending is how many bytes the jobs have beyond their stored offsets; it
// keeps each offset for the progress.
func (x *indexRun) pending() int64 {
	var n int64
	x.starts = make([]int64, len(x.jobs))
	for i, j := range x.jobs {
		x.starts[i], _ = x.st.TranscriptOffset(j.Path)
		n += max(0, fileSize(j.Path)-x.starts[i])
	}
	return n
}

func (x *indexRun) report(total, waiting int) {
	env := x.env
	n, _ := x.st.ChunkCount()
	fmt.Fprintf(env.Stdout, "Indexed %s from %s; %s in the store. Search them with 'ctxhook search'.\n",
		plural(int64(total), "new turn", "new turns"), plural(int64(len(x.jobs)), "transcript", "transcripts"), plural(n, "turn", "turns"))
	if waiting > 0 && !x.named {
		fmt.Fprintf(env.Stdout, "The last turn of %s waits: written to in the last %d minutes, the session may still run. Its Stop hook indexes it, or 'ctxhook index' once it is quiet.\n",
			plural(int64(waiting), "transcript", "transcripts"), int(quietFor.Minutes()))
	}
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

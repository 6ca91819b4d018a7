// Package transcripts indexes agent session transcripts (Claude Code's
// and Codex CLI's JSON Lines files) incrementally: each pass reads what
// was appended since the stored byte offset, has the plugin cut it into
// redacted chunks of one logical turn, and stores them with the new
// offset in one transaction.
package transcripts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
	"unsafe"

	"github.com/ctxhook/ctxhook/host/internal/ownsecrets"
	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/host/runner"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// MaxPass bounds one pass's read; a hook does one pass, `ctxhook index`
// as many as the file needs. A single line longer than MaxLine is skipped.
const (
	MaxPass = 1 << 20
	MaxLine = 64 << 20
)

// Job is one transcript to bring up to date.
type Job struct {
	Path, Format, Session string
	// Final: the session's last turn is over.
	Final bool
	// Read, when set, reads the source instead of the file at Path (a
	// database's session rendered as lines): whole lines from off, and the
	// source's size; errRewritten when it is shorter than off. pass is
	// Pass.
	Read func(path string, off, pass int64) (data []byte, size int64, err error)
	// Pass bounds one pass's read (0: MaxPass). The plugin decodes and
	// redacts a pass in one call, whose time and memory grow with it.
	Pass int64
	// Known are tokens to redact besides the session's own: the job of
	// `ctxhook index` names no session, and every hook redacts what ctxhook
	// holds (ownsecrets).
	Known []string
	// Watch, when set, is called before each plugin call with the size of
	// its input, and what it returns after the call: a host whose plugin
	// calls cannot be interrupted arms a watchdog there.
	Watch func(n int) (done func())
	// Renew, when set, is called after each pass with the runner it used
	// and returns the one for the next: a long run replaces an instance
	// whose memory grew (guest memory never shrinks) or a call broke.
	Renew func(r *runner.Runner) *runner.Runner
	// cut: the pass reached MaxTurn inside a turn, which ends with it.
	cut bool
}

// Result says what a run did.
type Result struct {
	Chunks int
	Bytes  int64
	Done   bool // the whole file is indexed
}

// StateReader returns state values for keys (the relay's tokens, to redact).
type StateReader func(keys []string) (map[string]string, error)

// MaxTurn bounds how far a pass grows to hold one turn: a turn longer
// than a pass (a tool result of several MB) made no progress and stopped
// its transcript there for good. The pass grows fourfold until the turn
// fits; a turn longer than MaxTurn is cut at the pass's end (the plugin
// keeps 64 KiB of a turn in any case) and the rest of it is read past.
// 4 MiB: the guest's memory grows to several times a pass (171 MB after
// 6 MB lines), and 16 MiB passes took ctxhook index past 400 MB.
// Tests lower it.
var MaxTurn int64 = 4 << 20

// Index runs passes on j until the file is indexed or passes runs out
// (0: no limit).
func Index(ctx context.Context, r *runner.Runner, st *store.Store, cfg abi.Config, readState StateReader, j Job, passes int) (Result, error) {
	var res Result
	cur := j // j with its pass grown to a long turn, or cut
	for n := 0; passes == 0 || n < passes; n++ {
		p, err := pass(ctx, r, st, cfg, readState, cur)
		if j.Renew != nil {
			r = j.Renew(r)
		}
		res.Chunks += p.chunks
		res.Bytes += p.read
		res.Done = p.done
		switch {
		case err != nil || p.done:
			return res, err
		case p.stalled && cur.pass() < MaxTurn:
			cur.Pass = min(cur.pass()*4, MaxTurn)
		case p.stalled:
			cur.cut = true
		default:
			cur = j
		}
	}
	return res, nil
}

// passed is what one pass did. stalled: the pass held no whole turn and
// the file goes on past it.
type passed struct {
	chunks        int
	read          int64
	done, stalled bool
}

func pass(ctx context.Context, r *runner.Runner, st *store.Store, cfg abi.Config, readState StateReader, j Job) (passed, error) {
	off, data, size, err := readPass(st, j)
	if errors.Is(err, os.ErrNotExist) {
		return passed{done: true}, nil // not written yet (a session just starting), or gone
	}
	if err != nil {
		return passed{}, err
	}
	if size == off || len(data) == 0 {
		return passed{done: true}, nil // nothing new, or only a partial last line so far
	}
	atEOF := off+int64(len(data)) >= size
	cs, consumed, err := chunk(ctx, r, cfg, readState, j, data, (j.Final && atEOF) || j.cut)
	if err != nil {
		return passed{}, err
	}
	if consumed == 0 && len(cs) == 0 {
		// One unfinished turn fills the read: at the file's end, nothing
		// to do until it ends; before it, a longer pass is needed.
		return passed{done: atEOF, stalled: !atEOF}, nil
	}
	if err := st.ApplyChunks(j.Path, cs, off+int64(consumed), time.Now().UnixMilli()); err != nil {
		return passed{}, err
	}
	return passed{chunks: len(cs), read: int64(consumed), done: atEOF && consumed == len(data)}, nil
}

// readPass reads a pass of j from its stored offset; a source shorter than
// that offset (rewritten or rotated) is started over.
func readPass(st *store.Store, j Job) (off int64, data []byte, size int64, err error) {
	off, err = st.TranscriptOffset(j.Path)
	if err != nil {
		return 0, nil, 0, err
	}
	rd := readFile
	if j.Read != nil {
		rd = j.Read
	}
	data, size, err = rd(j.Path, off, j.pass())
	if errors.Is(err, errRewritten) {
		if err := st.ResetTranscript(j.Path); err != nil {
			return 0, nil, 0, err
		}
		off = 0
		data, size, err = rd(j.Path, 0, j.pass())
	}
	return off, data, size, err
}

// chunk has the plugin cut data into redacted turns; final: the last turn
// in data is over.
func chunk(ctx context.Context, r *runner.Runner, cfg abi.Config, readState StateReader, j Job, data []byte, final bool) ([]abi.Chunk, int, error) {
	// One copy of the pass as JSON, shared by both calls: a pass may be
	// MaxTurn long, and every copy of it is resident at once.
	b, _ := json.Marshal(abi.TranscriptPayload{Format: j.Format, Path: j.Path, Session: j.Session,
		Data: unsafe.String(unsafe.SliceData(data), len(data)), Final: final})
	payload := unsafe.String(unsafe.SliceData(b), len(b)) // b is not written again
	if j.Watch != nil {
		defer j.Watch(len(payload))()
	}
	prep, err := r.Prepare(ctx, abi.PrepareRequest{Harness: abi.HarnessTranscript, Event: j.Format, Payload: payload})
	if err != nil {
		return nil, 0, err
	}
	req := abi.HandleRequest{Harness: abi.HarnessTranscript, Event: j.Format, Payload: payload, Config: cfg,
		NowMS: time.Now().UnixMilli(), Prepared: prep.Prepared, Environ: ownsecrets.Environ(ownsecrets.Present(j.Known, payload))}
	if req.State, err = readState(prep.StateKeys); err != nil {
		req.StateError = err.Error()
	}
	resp, err := r.Handle(ctx, req)
	if err != nil {
		return nil, 0, err
	}
	var ans abi.TranscriptAnswer
	if err := json.Unmarshal([]byte(resp.Stdout), &ans); err != nil || ans.Consumed < 0 || ans.Consumed > len(data) {
		return nil, 0, fmt.Errorf("transcripts: bad answer from the plugin: %q", resp.Stdout)
	}
	var cs []abi.Chunk
	for _, e := range resp.Effects {
		if e.Op == abi.OpStoreChunk && e.Chunk != nil {
			cs = append(cs, *e.Chunk)
		}
	}
	return cs, ans.Consumed, nil
}

// errRewritten says a source is shorter than its stored offset.
var errRewritten = errors.New("transcripts: rewritten")

// readFile reads whole lines of the file at path from off: the data, and
// the file's size.
func readFile(path string, off, pass int64) ([]byte, int64, error) {
	// Opened without waiting or following a link (openFlags) and read only
	// if the open file is a regular file of the user's that no one else
	// may write: Find checked the path, but it may have been swapped since.
	f, err := os.OpenFile(path, openFlags, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, err
	}
	if err != nil {
		return nil, 0, fmt.Errorf("transcripts: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("transcripts: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("transcripts: %s is not a regular file", path)
	}
	if err := platform.OwnedOpened(path, fi); err != nil {
		return nil, 0, fmt.Errorf("transcripts: %w", err)
	}
	if fi.Size() < off {
		return nil, 0, errRewritten
	}
	if fi.Size() == off {
		return nil, off, nil
	}
	data, err := readLines(f, off, fi.Size(), pass)
	return data, fi.Size(), err
}

func (j Job) pass() int64 {
	if j.Pass > 0 {
		return j.Pass
	}
	return MaxPass
}

// readLines reads whole lines from off, up to about pass bytes.
func readLines(f *os.File, off, size, pass int64) ([]byte, error) {
	want := min(size-off, pass)
	buf := make([]byte, want)
	n, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("transcripts: %w", err)
	}
	buf = buf[:n]
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		return buf[:i+1], nil
	}
	// No line end within MaxPass: a very long line. Read on to its end.
	for int64(len(buf)) < min(size-off, MaxLine) {
		more := make([]byte, min(size-off-int64(len(buf)), MaxPass))
		m, err := f.ReadAt(more, off+int64(len(buf)))
		buf = append(buf, more[:m]...)
		if i := bytes.IndexByte(more[:m], '\n'); i >= 0 {
			return buf[:len(buf)-m+i+1], nil
		}
		if err != nil {
			break
		}
	}
	return nil, nil
}

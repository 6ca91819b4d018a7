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
	// `ctxhook index` names no session (KnownTokens).
	Known []string
}

// Result says what a run did.
type Result struct {
	Chunks int
	Bytes  int64
	Done   bool // the whole file is indexed
}

// StateReader returns state values for keys (the relay's tokens, to redact).
type StateReader func(keys []string) (map[string]string, error)

// Index runs passes on j until the file is indexed or passes runs out
// (0: no limit).
func Index(ctx context.Context, r *runner.Runner, st *store.Store, cfg abi.Config, readState StateReader, j Job, passes int) (Result, error) {
	var res Result
	for n := 0; passes == 0 || n < passes; n++ {
		chunks, read, done, err := pass(ctx, r, st, cfg, readState, j)
		res.Chunks += chunks
		res.Bytes += read
		res.Done = done
		if err != nil || done {
			return res, err
		}
	}
	return res, nil
}

func pass(ctx context.Context, r *runner.Runner, st *store.Store, cfg abi.Config, readState StateReader, j Job) (chunks int, read int64, done bool, err error) {
	off, err := st.TranscriptOffset(j.Path)
	if err != nil {
		return 0, 0, false, err
	}
	rd := readFile
	if j.Read != nil {
		rd = j.Read
	}
	data, size, err := rd(j.Path, off, j.pass())
	if errors.Is(err, errRewritten) { // rewritten or rotated: start over
		if err := st.ResetTranscript(j.Path); err != nil {
			return 0, 0, false, err
		}
		off = 0
		data, size, err = rd(j.Path, 0, j.pass())
	}
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, true, nil // not written yet (a session just starting), or gone
	}
	if err != nil {
		return 0, 0, false, err
	}
	if size == off {
		return 0, 0, true, nil
	}
	atEOF := off+int64(len(data)) >= size
	if len(data) == 0 {
		return 0, 0, true, nil // only a partial last line so far
	}
	payload, _ := json.Marshal(abi.TranscriptPayload{Format: j.Format, Path: j.Path, Session: j.Session,
		Data: string(data), Final: j.Final && atEOF})
	prep, err := r.Prepare(ctx, abi.PrepareRequest{Harness: abi.HarnessTranscript, Event: j.Format, Payload: string(payload)})
	if err != nil {
		return 0, 0, false, err
	}
	req := abi.HandleRequest{Harness: abi.HarnessTranscript, Event: j.Format, Payload: string(payload), Config: cfg,
		NowMS: time.Now().UnixMilli(), Prepared: prep.Prepared, Environ: knownEnviron(j.Known)}
	if req.State, err = readState(prep.StateKeys); err != nil {
		req.StateError = err.Error()
	}
	resp, err := r.Handle(ctx, req)
	if err != nil {
		return 0, 0, false, err
	}
	var ans abi.TranscriptAnswer
	if err := json.Unmarshal([]byte(resp.Stdout), &ans); err != nil || ans.Consumed < 0 || ans.Consumed > len(data) {
		return 0, 0, false, fmt.Errorf("transcripts: bad answer from the plugin: %q", resp.Stdout)
	}
	var cs []abi.Chunk
	for _, e := range resp.Effects {
		if e.Op == abi.OpStoreChunk && e.Chunk != nil {
			cs = append(cs, *e.Chunk)
		}
	}
	if ans.Consumed == 0 && len(cs) == 0 {
		// One unfinished turn fills the read: nothing to do until it ends
		// (or, at MaxPass, until a final pass).
		return 0, 0, true, nil
	}
	if err := st.ApplyChunks(j.Path, cs, off+int64(ans.Consumed), time.Now().UnixMilli()); err != nil {
		return 0, 0, false, err
	}
	return len(cs), int64(ans.Consumed), atEOF && ans.Consumed == len(data), nil
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

// Package spool holds what the store cannot take at the moment, or what
// a long-lived host (the daemon, the proxy) stores after its answer: one
// file per hook's effects, private to the user, replayed into the store
// exactly once (by the next hook, the writer, or `ctxhook io replay`).
package spool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ctxhook/ctxhook/host/internal/memtrim"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// spooled is one batch of a spool file: the effects of one hook the store
// could not take at the time (or, for the daemon, has not taken yet). It
// is one JSON line; strings of abi.BlobMin bytes or more (a big response)
// follow the line as raw bytes, named in order by Blobs, so a 64 MiB
// response is neither escaped into the file nor parsed out of it.
type spooled struct {
	Events  []abi.Event  `json:"events"`
	Tallies []abi.Effect `json:"tallies,omitempty"`
	// Request names the hook's batch (hook.Engine's request name), if it has one.
	Request string `json:"request,omitempty"`
	// Blobs are the strings after the line, in order.
	Blobs []abi.Blob `json:"blobs,omitempty"`
}

// spoolFields lists the strings of a batch that may travel as blobs.
func spoolFields(s *spooled, each func(field string, p *string)) {
	for i := range s.Events {
		e := &s.Events[i]
		p := "events." + strconv.Itoa(i) + "."
		each(p+"args", &e.Args)
		each(p+"response", &e.Response)
		each(p+"text", &e.Text)
	}
}

// encodeSpooled encodes a batch: its JSON line, then its blobs, as the
// pieces to write one after another (a 64 MiB response is not copied
// into one buffer first).
func encodeSpooled(s spooled) ([][]byte, error) {
	var blobs []string
	events := make([]abi.Event, len(s.Events)) // the caller's events keep their strings
	copy(events, s.Events)
	s.Events = events
	s.Blobs = nil
	spoolFields(&s, func(field string, p *string) {
		if len(*p) >= abi.BlobMin {
			s.Blobs = append(s.Blobs, abi.Blob{Field: field, Bytes: len(*p)})
			blobs = append(blobs, *p)
			*p = ""
		}
	})
	line, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	out := [][]byte{append(line, '\n')}
	for _, b := range blobs {
		out = append(out, unsafe.Slice(unsafe.StringData(b), len(b)))
	}
	return out, nil
}

// readSpooled reads the next batch from r: a JSON line, then the blobs it
// names. io.EOF when there is none. limit is the size of what r reads (the
// spool file's): blobs that claim more are damage, refused before a buffer
// of their size is made.
func readSpooled(r *bufio.Reader, limit int64) (spooled, error) {
	var s spooled
	var line []byte
	for len(bytes.TrimSpace(line)) == 0 {
		var err error
		line, err = r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long line (a spool file of an older version, with its
			// bodies inside): read it whole.
			rest, err2 := r.ReadBytes('\n')
			line = append(append([]byte{}, line...), rest...)
			err = err2
		}
		if err != nil && len(bytes.TrimSpace(line)) == 0 {
			return s, err // io.EOF: no batch left
		}
	}
	if err := json.Unmarshal(line, &s); err != nil {
		return s, err
	}
	if len(s.Blobs) == 0 {
		return s, nil
	}
	want := map[string]int{}
	total := int64(0)
	for i, b := range s.Blobs {
		if total += int64(b.Bytes); b.Bytes < 0 || total > limit {
			return s, fmt.Errorf("spool: blob %s of %d bytes", b.Field, b.Bytes)
		}
		want[b.Field] = i
	}
	data := make([]byte, total)
	if _, err := io.ReadFull(r, data); err != nil {
		return s, fmt.Errorf("spool: blobs: %w", err)
	}
	offsets := make([]int, len(s.Blobs))
	for i := 1; i < len(s.Blobs); i++ {
		offsets[i] = offsets[i-1] + s.Blobs[i-1].Bytes
	}
	found := 0
	spoolFields(&s, func(field string, p *string) {
		if i, ok := want[field]; ok {
			found++
			// data is this batch's alone and never written again: its
			// strings share it rather than copy every big body once more.
			if n := s.Blobs[i].Bytes; n > 0 {
				*p = unsafe.String(&data[offsets[i]], n)
			}
		}
	})
	if found != len(s.Blobs) {
		return s, fmt.Errorf("spool: blobs name fields the batch lacks")
	}
	s.Blobs = nil
	return s, nil
}

// spoolSeq tells apart files one process spools in the same nanosecond.
var spoolSeq atomic.Uint64

// Write spools the effects to their own 0600 file, so concurrent hooks never
// interleave writes. The events are already redacted by the plugin.
//
// With durable the file is fsynced: that is the path for events the store
// refused, which may wait long. Without, it survives the death of the
// process (the kernel holds it) but not of the machine, the same promise
// the store makes in WAL mode with synchronous=NORMAL; the daemon spools
// so before it answers, and its writer stores the file moments later.
func Write(dir string, events []abi.Event, tallies []abi.Effect, request string, durable bool) error {
	if err := paths.EnsureDir(dir); err != nil {
		return err
	}
	b, err := encodeSpooled(spooled{Events: events, Tallies: tallies, Request: request})
	if err != nil {
		return err
	}
	name := filepath.Join(dir, fmt.Sprintf("%d-%d-%d.jsonl", time.Now().UnixNano(), os.Getpid(), spoolSeq.Add(1)))
	f, err := os.OpenFile(name+".tmp", os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	for _, piece := range b {
		if _, err := f.Write(piece); err != nil {
			f.Close()
			os.Remove(name + ".tmp") // a full disk must not leave a stub behind
			return err
		}
	}
	if durable {
		if err := f.Sync(); err != nil {
			f.Close()
			os.Remove(name + ".tmp")
			return err
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(name + ".tmp")
		return err
	}
	if err := os.Rename(name+".tmp", name); err != nil {
		os.Remove(name + ".tmp")
		return err
	}
	return nil
}

// ReplayAll moves every spooled event into st and reports how many
// files it stored. The daemon's writer calls it after each answer.
// warn, when not nil, is told of each file set aside as corrupt.
func ReplayAll(p paths.Paths, st *store.Store, warn func(string)) int {
	return Replay(p.SpoolDir(), st, 0, warn)
}

// errCorrupt marks a spool file that cannot be read back: it is set
// aside (renamed .corrupt) rather than tried again on every replay.
var errCorrupt = errors.New("corrupt spool file")

// staleTmp is how old a spool file still being written (.tmp) must be to
// be a dead writer's leftover: a live writer finishes in seconds.
const staleTmp = 10 * time.Minute

// ReplayInline bounds what a hook replays before its own events: the
// spool's small files. A big one (a 64 MiB response spooled by another
// hook) is stored by the daemon's writer or `ctxhook io replay`, not by
// whichever small hook comes next.
const ReplayInline = 1 << 20

// Replay moves spooled events from dir into the store. A file is claimed by
// renaming it first, so two hooks never replay the same file twice; a file
// that fails to apply is put back for the next try. A file claimed by a
// process that died before it finished is taken back: its transaction
// was rolled back with it.
//
// maxBytes, when not 0, skips files larger than that. warn, when not
// nil, is told of each file set aside as corrupt and of files left in
// the spool because the store would not take them or read them back.
func Replay(dir string, st *store.Store, maxBytes int64, warn func(string)) int {
	n, _, failed := replay(dir, st, maxBytes, warn)
	if failed != nil && warn != nil {
		warn(failed.Error())
	}
	return n
}

// settleEvery bounds the files applied before they are read back and
// deleted: one reader is opened for them all (about a millisecond), and
// a writer killed in between replays no more than these again.
const settleEvery = 64

// replay is Replay, also reporting the bytes of the files it stored (a
// big file is big work for memtrim: its body was held here and in the
// store's SQLite, and the memory goes back to the system soon after),
// and the first reason a file was left in the spool (the store would
// not take it, or it could not be read back: the caller's connection may
// then see what is no longer on disk, and is best closed).
func replay(dir string, st *store.Store, maxBytes int64, warn func(string)) (n int, stored int64, failed error) {
	var applied []appliedFile
	fail := func(err error) {
		if failed == nil {
			failed = err
		}
	}
	settleApplied := func() {
		k, size, err := settle(st, applied)
		n, stored, applied = n+k, stored+size, applied[:0]
		fail(err)
	}
	for _, f := range spoolFiles(dir, maxBytes) {
		a, ok, err := applyFile(f, st, warn)
		if ok {
			applied = append(applied, a)
		}
		fail(err)
		if len(applied) >= settleEvery {
			settleApplied()
		}
	}
	settleApplied()
	return n, stored, failed
}

// spoolFiles lists the files to replay: the spool's own (at most
// maxBytes each, when not 0) and those a process that died had claimed.
// A dead writer's unfinished file (.tmp) is removed on the way.
func spoolFiles(dir string, maxBytes int64) []string {
	tmps, _ := filepath.Glob(filepath.Join(dir, "*.jsonl.tmp"))
	for _, t := range tmps {
		if fi, err := os.Stat(t); err == nil && time.Since(fi.ModTime()) > staleTmp {
			os.Remove(t)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if maxBytes > 0 {
		files = slices.DeleteFunc(files, func(f string) bool {
			fi, err := os.Stat(f)
			return err != nil || fi.Size() > maxBytes
		})
	}
	orphans, _ := filepath.Glob(filepath.Join(dir, "*.jsonl.replaying-*"))
	for _, o := range orphans {
		pid, err := strconv.Atoi(o[strings.LastIndex(o, "-")+1:])
		if err == nil && pid != os.Getpid() && processGone(pid) {
			files = append(files, o)
		}
	}
	return files
}

// appliedFile is a spool file claimed and stored, not yet read back.
type appliedFile struct {
	claimed, orig string
	// refs name its events as get_event finds them: a key, else an id.
	refs []string
}

// applyFile claims spool file f and stores it. ok is false when another
// process took it, when it is corrupt (set aside as .corrupt, what it
// held before the damage stored) or when the store would not take it:
// it is put back, and err says why.
func applyFile(f string, st *store.Store, warn func(string)) (a appliedFile, ok bool, err error) {
	orig := f
	if i := strings.Index(f, ".replaying-"); i >= 0 {
		orig = f[:i]
	}
	claimed := orig + fmt.Sprintf(".replaying-%d", os.Getpid())
	if os.Rename(f, claimed) != nil {
		return a, false, nil // another process took it
	}
	refs, err := replayFile(claimed, filepath.Base(orig), st)
	if errors.Is(err, errCorrupt) {
		os.Rename(claimed, orig+".corrupt")
		if warn != nil {
			warn(fmt.Sprintf("spool: %s set aside as %s.corrupt (%v); what it held before the damage was stored", filepath.Base(orig), filepath.Base(orig), err))
		}
		return a, false, nil
	} else if err != nil {
		os.Rename(claimed, orig)
		return a, false, fmt.Errorf("spool: the store did not take %s (%v): it waits in the spool", filepath.Base(orig), err)
	}
	return appliedFile{claimed: claimed, orig: orig, refs: refs}, true, nil
}

// replayFile stores each line of a spool file once: a line is named by
// its hook's request, else by file and line, and the store skips a name
// it has applied (a writer killed between commit and delete leaves the
// file to be replayed again). It returns the refs of the events stored.
func replayFile(name, base string, st *store.Store) ([]string, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	r := bufio.NewReaderSize(fh, 64<<10)
	var refs []string
	for line := 1; ; line++ {
		s, err := readSpooled(r, fi.Size())
		if err == io.EOF {
			return refs, nil
		}
		if err != nil {
			return refs, fmt.Errorf("%w: line %d: %v", errCorrupt, line, err)
		}
		name := s.Request // the hook's own name, else the file's batch
		if name == "" {
			name = base + ":" + strconv.Itoa(line)
		}
		ids, err := st.ApplyOnce(store.Batch{Name: name}, s.Events, s.Tallies)
		if err != nil {
			return refs, err
		}
		for i, id := range ids {
			ref := strconv.FormatInt(id, 10)
			if i < len(s.Events) && s.Events[i].Key != "" {
				ref = s.Events[i].Key
			}
			refs = append(refs, ref)
		}
	}
}

// settle reads the events of the files applied back, and deletes each
// file whose events are read; the others are put back in the spool. The
// events are read as get_event will find them: by a reader opened now,
// on the files now on disk. The writer's own connection is not enough:
// a store truncated, or its WAL removed, under a writer that holds it
// open takes the writer's commits into the WAL it still holds and reads
// them back from there, while every other reader finds the store
// damaged. A file kept so waits in the spool, which get_event serves,
// and is stored once the store is mended or made anew.
func settle(st *store.Store, applied []appliedFile) (n int, stored int64, damaged error) {
	if len(applied) == 0 {
		return 0, 0, nil
	}
	reader, err := store.Open(st.Path(), store.Options{ReadOnly: true})
	if err != nil {
		damaged = fmt.Errorf("spool: the store cannot be read back (%v): what it just took waits in the spool; ctxhook doctor", err)
	} else {
		defer reader.Close()
	}
	for _, a := range applied {
		if damaged == nil {
			damaged = readBack(st, reader, a.refs)
		}
		if damaged != nil {
			os.Rename(a.claimed, a.orig)
			continue
		}
		if fi, err := os.Stat(a.claimed); err == nil {
			stored += fi.Size()
			memtrim.After(fi.Size())
		}
		os.Remove(a.claimed)
		n++
	}
	return n, stored, damaged
}

// readBack reads each event refs names through the writer's connection
// and through reader. Not found by the writer is an event the caps
// evicted at once (an old one replayed into a full store): stored as
// the caps allow. Found by the writer and not by the reader is a store
// replaced or cut under the writer.
func readBack(st, reader *store.Store, refs []string) error {
	for _, ref := range refs {
		err := st.ReadBack(ref)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err == nil {
			err = reader.ReadBack(ref)
		}
		if err != nil {
			return fmt.Errorf("spool: stored event %s cannot be read back (%w): it waits in the spool; ctxhook doctor", ref, err)
		}
	}
	return nil
}

// Writer moves spooled events into the store whenever kicked, and once
// more when ctx ends: the writer of a long-lived host (the daemon, the
// proxy) whose engines spool (engine.Spool) so that an answer waits
// for the decision and the state, not for SQLite. It keeps the store
// open, reopening it every 500 files, and after a pass that stored big
// ones, so the memory of SQLite's own wasm instance is returned. When the
// store cannot be opened the files wait
// in the spool, where any later writer finds them. open opens the store
// with the caller's options (its retention caps, from the config).
func Writer(ctx context.Context, p paths.Paths, open func() (*store.Store, error), log func(string), kick <-chan struct{}) {
	background()
	var st *store.Store
	defer func() {
		if st != nil {
			st.Close()
		}
	}()
	stored, wasFailing := 0, false
	pass := func() {
		if st == nil {
			var err error
			if st, err = open(); err != nil {
				log("store: " + err.Error())
				st = nil
				return
			}
		}
		files, size, failed := replay(p.SpoolDir(), st, 0, log)
		stored += files
		// Said once, until a pass stores again: every hook kicks a pass.
		if failed != nil && !wasFailing {
			log(failed.Error())
		}
		wasFailing = failed != nil
		// Closed after 500 files, or after big ones: what SQLite grew to
		// for them is returned with it (memtrim), not kept. Closed too
		// when a file was left in the spool: the next pass opens the
		// files on disk, not the ones this connection may still hold.
		if stored >= 500 || size >= memtrim.Big || failed != nil {
			st.Close()
			st, stored = nil, 0
		}
	}
	// Kicks are gathered: a pass starts at once after a quiet spell, and
	// at most every passGap while hooks keep coming, so that one pass
	// (and one read-back) serves the files of several hooks.
	var due <-chan time.Time
	last := time.Time{}
	for {
		select {
		case <-kick:
			if due == nil {
				due = time.After(time.Until(last.Add(passGap)))
			}
		case <-due:
			due, last = nil, time.Now()
			pass()
		case <-ctx.Done():
			pass()
			return
		}
	}
}

// passGap is the least time between the starts of two of a writer's
// passes: an event waits at most this long more before it is stored.
const passGap = 50 * time.Millisecond

// Find returns the event stored under key in a spool file of dir, for
// ctxhook mcp while the store cannot take it: a shaped response's pointer
// names its event before it is stored (the daemon answers first), or
// while the store is damaged, and the model must get the event either
// way. Spool files hold events as the store would (redacted by the
// plugin, 0600, the user's), so serving one shows nothing the store
// would not. Files being replayed are read too. A file that moved
// between the listing and its reading (claimed by a writer, or put back
// by one the store refused) makes a miss look again, once.
func Find(dir, key string) (abi.Event, bool) {
	if key == "" {
		return abi.Event{}, false
	}
	for range 2 {
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		replaying, _ := filepath.Glob(filepath.Join(dir, "*.jsonl.replaying-*"))
		moved := false
		for _, f := range append(files, replaying...) {
			ev, ok, gone := findIn(f, key)
			if ok {
				return ev, true
			}
			moved = moved || gone
		}
		if !moved {
			break
		}
	}
	return abi.Event{}, false
}

// findIn reads one spool file for the event under key; gone reports a
// file no longer there. A batch whose line does not name the key is not
// read further than its line: its blobs are skipped unread.
func findIn(name, key string) (ev abi.Event, ok, gone bool) {
	fh, err := os.Open(name)
	if err != nil {
		return abi.Event{}, false, errors.Is(err, fs.ErrNotExist)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return abi.Event{}, false, false
	}
	r := bufio.NewReaderSize(fh, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) == 0 {
			if err != nil {
				return abi.Event{}, false, false
			}
			continue
		}
		var head spooled
		if json.Unmarshal(line, &head) != nil {
			return abi.Event{}, false, false
		}
		if !slices.ContainsFunc(head.Events, func(e abi.Event) bool { return e.Key == key }) {
			skip := int64(0)
			for _, b := range head.Blobs {
				skip += int64(b.Bytes)
			}
			if _, err := io.CopyN(io.Discard, r, skip); err != nil {
				return abi.Event{}, false, false
			}
			continue
		}
		s, err := readSpooled(bufio.NewReader(io.MultiReader(bytes.NewReader(line), r)), fi.Size())
		if err != nil {
			return abi.Event{}, false, false
		}
		for _, e := range s.Events {
			if e.Key == key {
				return e, true, false
			}
		}
		return abi.Event{}, false, false
	}
}

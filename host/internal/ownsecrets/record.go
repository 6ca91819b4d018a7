package ownsecrets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/host/internal/state"
)

// The record of own values is an append-only file in the state
// directory holding every relay token a session document ctxhook wrote
// held or retired, one JSON string a line, oldest first. Hooks read it
// instead of the session documents: the documents are the plugin's, and
// a model with a shell can plant newer ones, or a session can be purged,
// which took a token out of the newest few a hook read. The record
// outlives both: redaction must outlive the session whose token the
// model read.
const RecordName = "own-values"

// recordMax and recordBytes bound what a compaction keeps, newest first;
// a file past twice either is compacted at the next append (tests lower
// them).
var (
	recordMax   = 4096
	recordBytes = 256 << 10
)

const (
	// recordRead bounds what is read of the file: a larger one (a
	// compaction that failed, a file planted) is read from its end.
	recordRead = 1 << 20
	// seedDocs bounds the documents read to seed a missing record.
	seedDocs = 512
)

// recordLockKey names the state lock every writer of the record takes.
const recordLockKey = "ownsecrets/record"

// record is one state directory's record as this process last read it.
type record struct {
	mu    sync.Mutex
	stamp string
	vals  []string // newest first
	has   map[string]bool
	lines int
}

var records struct {
	sync.Mutex
	m map[string]*record
}

func recordOf(dir string) *record {
	records.Lock()
	defer records.Unlock()
	if records.m == nil {
		records.m = map[string]*record{}
	}
	r := records.m[dir]
	if r == nil {
		r = &record{}
		records.m[dir] = r
	}
	return r
}

// RecordValues is the record's values, newest first. A record that does
// not exist yet is seeded from the newest session documents (the ones an
// earlier release wrote); one that is refused (not the user's, a link,
// readable by others) gives the newest Hook.Docs documents' tokens, as
// before the record.
func RecordValues(dir string) []string {
	vals, _ := recordValues(dir)
	return vals
}

// recordValues is RecordValues and the record's stamp ("" when refused).
func recordValues(dir string) ([]string, string) {
	r := recordOf(dir)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.load(dir); err != nil {
		var c docScan
		c.scan(dir, fallbackDocs)
		return c.tokens(), ""
	}
	return r.vals, r.stamp
}

// recordStamp names the file's version: size, time and inode change
// with every append and compaction.
func recordStamp(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d/%d/%v", fi.Size(), fi.ModTime().UnixNano(), fi.Sys()), nil
}

// load reads the record when it changed since the last load, seeding a
// missing one.
func (r *record) load(dir string) error {
	path := filepath.Join(dir, RecordName)
	stamp, err := recordStamp(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := seed(dir); err != nil {
			return err
		}
		stamp, err = recordStamp(path)
	}
	if err != nil {
		return err
	}
	if stamp == r.stamp && r.has != nil {
		return nil
	}
	b, err := readRecord(path)
	if err != nil {
		return err
	}
	r.vals, r.lines = parseRecord(b)
	r.has = make(map[string]bool, len(r.vals))
	for _, v := range r.vals {
		r.has[v] = true
	}
	r.stamp = stamp
	return nil
}

// openRecord opens the record with flag, refusing a link, anything but a
// regular file, a file of another user's and one others may read.
func openRecord(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|noFollow|noBlock, 0o600)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err == nil && fi.Mode().Perm()&0o077 != 0 {
		err = fmt.Errorf("%s may be read by others (mode %v)", path, fi.Mode().Perm())
	}
	if err == nil {
		err = platform.OwnedOpened(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readRecord reads the record, its last recordRead bytes when larger.
func readRecord(path string) ([]byte, error) {
	f, err := openRecord(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > recordRead {
		f.Seek(fi.Size()-recordRead, io.SeekStart)
	}
	return io.ReadAll(io.LimitReader(f, recordRead))
}

// parseRecord returns the values of a record's lines, newest first, each
// once, and the number of lines. A line that is not a JSON string (the
// start of a file read from its middle, an append being written) is
// passed over.
func parseRecord(b []byte) (vals []string, lines int) {
	seen := map[string]bool{}
	for len(b) > 0 {
		i := bytes.LastIndexByte(b[:len(b)-1], '\n')
		line := b[i+1:]
		b = b[:i+1]
		if i < 0 {
			b = nil
		}
		line, ok := bytes.CutSuffix(line, []byte("\n"))
		if !ok {
			continue
		}
		var v string
		if n := len(line); n >= 2 && line[0] == '"' && line[n-1] == '"' && bytes.IndexAny(line[1:n-1], "\\\"") < 0 {
			v = string(line[1 : n-1]) // no escape: what json.Unmarshal would give, without it
		} else if json.Unmarshal(line, &v) != nil {
			continue
		}
		if len(v) < minLen || seen[v] {
			continue
		}
		lines++
		seen[v] = true
		vals = append(vals, v)
	}
	return vals, lines
}

// Note adds to the record the tokens a session document that ctxhook is
// writing holds or retired, when the record lacks one. Every write of a
// session document goes through here (engine.apply), so the record holds
// every token ctxhook wrote, whatever documents are planted or removed
// later. Writers serialise on a state lock: an append and a compaction
// never race, and no value is lost.
func Note(dir, doc string) error {
	cur, retired := docTokens([]byte(doc))
	if len(cur)+len(retired) == 0 {
		return nil
	}
	r := recordOf(dir)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.load(dir); err != nil {
		return fmt.Errorf("own values: %w", err)
	}
	var add []string
	for _, v := range slices.Concat(retired, cur) {
		if len(v) >= minLen && !r.has[v] && !slices.Contains(add, v) {
			add = append(add, v)
		}
	}
	if len(add) == 0 {
		return nil
	}
	sd, err := state.Open(dir)
	if err != nil {
		return err
	}
	unlock, err := sd.Lock([]string{recordLockKey}, 2*time.Second)
	if err != nil {
		return fmt.Errorf("own values: %w", err)
	}
	defer unlock()
	path := filepath.Join(dir, RecordName)
	before, _ := recordStamp(path)
	if err := appendRecord(path, add); err != nil {
		return fmt.Errorf("own values: %w", err)
	}
	if before != r.stamp {
		r.stamp = "" // another process wrote meanwhile: read it all again
	} else if r.stamp, err = recordStamp(path); err == nil {
		for _, v := range add {
			r.has[v] = true
		}
		slices.Reverse(add)
		r.vals, r.lines = append(add, r.vals...), r.lines+len(add)
	}
	if err := r.load(dir); err != nil {
		return fmt.Errorf("own values: %w", err)
	}
	if fi, err := os.Lstat(path); err == nil && (r.lines > 2*recordMax || fi.Size() > 2*int64(recordBytes)) {
		return compact(path, r.vals)
	}
	return nil
}

// appendRecord writes vals, one line each, in one write at the end.
func appendRecord(path string, vals []string) error {
	var b bytes.Buffer
	for _, v := range vals {
		line, _ := json.Marshal(v)
		b.Write(line)
		b.WriteByte('\n')
	}
	f, err := openRecord(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return err
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// compact replaces the record by its newest values, within recordMax
// and recordBytes (taken under the record's lock).
func compact(path string, newestFirst []string) error {
	keep := bound(newestFirst, recordBytes)
	keep = keep[:min(len(keep), recordMax)]
	var b bytes.Buffer
	for _, v := range slices.Backward(keep) {
		line, _ := json.Marshal(v)
		b.Write(line)
		b.WriteByte('\n')
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".own-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// seed creates a missing record from the tokens of the newest seedDocs
// session documents, under the record's lock (another process may seed
// it meanwhile: then it is left as it is).
func seed(dir string) error {
	sd, err := state.Open(dir)
	if err != nil {
		return err
	}
	unlock, err := sd.Lock([]string{recordLockKey}, 2*time.Second)
	if err != nil {
		return err
	}
	defer unlock()
	path := filepath.Join(dir, RecordName)
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var c docScan
	c.scan(dir, seedDocs)
	toks := bound(c.tokens(), recordBytes)
	slices.Reverse(toks) // oldest first, as appended
	return appendRecord(path, toks)
}

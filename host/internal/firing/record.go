// Package firing proves that hooks run. Every hook notes, per harness and
// event, when it last ran and in which sessions (Record, on the hook
// path: cheap, and its failures ignored). `ctxhook doctor` compares that
// with what the harness's own transcripts say happened (Report): a
// session that called MCP tools but sent no hook means the hooks are
// configured but silent, which a configuration check cannot see (a
// desktop app that fires no hooks, a client release that stopped firing
// one, hooks turned off elsewhere).
package firing

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/paths"
)

// keepSessions bounds the sessions kept per event: the most recent ones.
const keepSessions = 32

// rewriteAfter: a session's hooks after its first of an event rewrite
// the record at most this often (a write cost about 2 ms on a busy
// machine, a read a few tens of µs): "last fired" is to the minute.
const rewriteAfter = time.Minute

// scanBytes is how much of a payload is searched for its session: every
// harness puts it near the start, and a payload may be 100 MiB.
const scanBytes = 16 << 10

// Fired is what is kept about one hook event of one harness.
type Fired struct {
	Last       time.Time `json:"last"`
	Session    string    `json:"session,omitempty"` // HashID of the session
	Transcript string    `json:"transcript,omitempty"`
	Sessions   []string  `json:"sessions,omitempty"` // HashIDs, most recent last
}

// Dir is where the records are kept, under the data directory.
func Dir(data string) string { return filepath.Join(data, "fired") }

// Record notes that harness's event hook ran at now, for the session the
// payload names, in <harness>.<event>.json. It never fails the hook: an
// error is only returned, for tests. Two hooks racing may lose one's
// note; the next one makes up.
func Record(dir, harness, event string, payload []byte, now time.Time) error {
	if !safeName(harness) || !safeName(event) {
		return os.ErrInvalid
	}
	head := payload[:min(len(payload), scanBytes)]
	session := HashID(TopString(head, "session_id"))
	path := filepath.Join(dir, harness+"."+event+".json")
	b, mod := read(path)
	if session != "" && bytes.Contains(b, []byte(`"`+session+`"`)) && now.Sub(mod) < rewriteAfter && !now.Before(mod) {
		return nil // known session, noted lately: a read, no write
	}
	var ev Fired
	json.Unmarshal(b, &ev)
	ev.Last, ev.Session = now.UTC(), session
	if t := TopString(head, "transcript_path"); t != "" {
		ev.Transcript = t
	}
	if session != "" {
		ev.Sessions = append(slices.DeleteFunc(ev.Sessions, func(s string) bool { return s == session }), session)
		ev.Sessions = ev.Sessions[max(0, len(ev.Sessions)-keepSessions):]
	}
	return save(dir, path, ev)
}

// read returns the record at path and when it was written (nothing when
// there is none).
func read(path string) ([]byte, time.Time) {
	f, err := os.Open(path)
	if err != nil {
		return nil, time.Time{}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return nil, time.Time{}
	}
	b, _ := io.ReadAll(f)
	return b, fi.ModTime()
}

// Load reads harness's records, by event (those that are missing or bad
// are left out).
func Load(dir, harness string) map[string]*Fired {
	out := map[string]*Fired{}
	if !safeName(harness) {
		return out
	}
	m, _ := filepath.Glob(filepath.Join(dir, harness+".*.json"))
	for _, p := range m {
		event := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), harness+"."), ".json")
		var f Fired
		if b, _ := read(p); safeName(event) && json.Unmarshal(b, &f) == nil {
			out[event] = &f
		}
	}
	return out
}

// save writes f whole (0600, in a 0700 directory of this user's), replacing the old
// record in one rename.
func save(dir, path string, f Fired) error {
	// Not created or written as another user (root with a user's HOME
	// leaves nothing of root's in that user's tree).
	if err := paths.EnsureDir(dir); err != nil {
		return err
	}
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".fired-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// safeName: harness and event names become file names and keys.
func safeName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Note is Record for the hook path: the proxy's requests are not hooks,
// and a failure is ignored (the hook goes on; doctor will say nothing
// fired).
func Note(data, harness, event string, payload []byte, now time.Time) {
	if harness == "mcp-proxy" || data == "" {
		return
	}
	Record(Dir(data), harness, event, payload, now)
}

// quietAfter is how long a session may run with no hook of it arrived
// before a status line says the hooks are silent: its first hooks
// (SessionStart, the first prompt's) come within seconds.
const quietAfter = 2 * time.Minute

// SessionQuiet reports whether harness's session, whose transcript is
// at transcript, began more than quietAfter before now (the first
// timestamp in its transcript) and no hook of it has arrived. It reads
// the record and 4 KiB of the transcript: cheap enough for a status line.
func SessionQuiet(dir, harness, session, transcript string, now time.Time) bool {
	if session == "" || transcript == "" {
		return false
	}
	for _, f := range Load(dir, harness) {
		if slices.Contains(f.Sessions, HashID(session)) {
			return false
		}
	}
	fh, err := openMine(transcript)
	if err != nil {
		return false
	}
	defer fh.Close()
	head := make([]byte, 4<<10)
	n, _ := io.ReadFull(fh, head)
	began, err := time.Parse(time.RFC3339Nano, firstTimestamp(head[:n]))
	return err == nil && now.Sub(began) > quietAfter
}

// firstTimestamp is the first top-level "timestamp" of the JSON lines
// in head.
func firstTimestamp(head []byte) string {
	for l := range bytes.SplitSeq(head, []byte("\n")) {
		if t := TopString(l, "timestamp"); t != "" {
			return t
		}
	}
	return ""
}

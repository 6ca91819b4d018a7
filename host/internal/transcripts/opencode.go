package transcripts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// OpenCode and its descendants (Kilo) keep sessions in a SQLite database
// (opencode.db, 1.18.33): tables session, message and part, each row's
// JSON in a data column. The database also holds accounts and
// credentials, so ctxhook reads nothing but those three tables, on a
// read-only connection that trusts no schema object (a planted view or
// trigger runs no function). Each session becomes a source of its own,
// named <database>#<session>, rendered as one JSON line per message with
// its parts, in the order OpenCode made them; the plugin reads the lines
// (format "opencode").

// MaxSession bounds one session's rendering; a longer one is indexed up
// to there.
const MaxSession = 256 << 20

// DBJobs lists the sessions of an OpenCode-family database as jobs of
// format. A session untouched for quiet is final.
func DBJobs(db, format string, quiet time.Duration) ([]Job, error) {
	conn, err := openRO(db)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	st, _, err := conn.Prepare(`SELECT id, time_updated FROM session ORDER BY time_created, id`)
	if err != nil {
		return nil, fmt.Errorf("transcripts: %s: %w", db, err)
	}
	defer st.Close()
	var jobs []Job
	now := time.Now().UnixMilli()
	for st.Step() {
		id := st.ColumnText(0)
		r := &sessionReader{db: db, session: id}
		jobs = append(jobs, Job{Path: db + "#" + id, Format: format, Read: r.read,
			Final: now-st.ColumnInt64(1) > quiet.Milliseconds()})
	}
	return jobs, st.Err()
}

// openRO opens a database for reading only, refusing a link or another
// user's file as Find does.
func openRO(db string) (*sqlite3.Conn, error) {
	fi, err := os.Lstat(db)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("transcripts: %s is not a regular file", db)
	}
	conn, err := sqlite3.OpenFlags("file:"+db+"?mode=ro", sqlite3.OPEN_READONLY|sqlite3.OPEN_URI)
	if err != nil {
		return nil, fmt.Errorf("transcripts: %s: %w", db, err)
	}
	if err := conn.Exec(`PRAGMA trusted_schema = OFF; PRAGMA query_only = ON`); err != nil {
		conn.Close()
		return nil, fmt.Errorf("transcripts: %s: %w", db, err)
	}
	return conn, nil
}

// sessionReader renders one session once per run and serves reads of it.
type sessionReader struct {
	db, session string
	doc         []byte
	rendered    bool
}

func (r *sessionReader) read(_ string, off, pass int64) ([]byte, int64, error) {
	if !r.rendered {
		doc, err := renderSession(r.db, r.session)
		if err != nil {
			return nil, 0, err
		}
		r.doc, r.rendered = doc, true
	}
	size := int64(len(r.doc))
	if off > size {
		return nil, 0, errRewritten
	}
	end := min(size, off+pass)
	data := r.doc[off:end]
	if end < size {
		i := bytes.LastIndexByte(data, '\n')
		data = data[:i+1] // a line longer than MaxPass: see below
		if i < 0 {
			if j := bytes.IndexByte(r.doc[off:], '\n'); j >= 0 && j < MaxLine {
				data = r.doc[off : off+int64(j)+1]
			}
		}
	}
	if off+int64(len(data)) >= size {
		// Read to its end: the rendering goes, or every session of a
		// large database would stay in memory until the run ends (its
		// job holds this reader). A later pass renders it again.
		r.doc, r.rendered = nil, false
	}
	return data, size, nil
}

// sessionLine is one message as the plugin reads it.
type sessionLine struct {
	Session   string            `json:"session"`
	Directory string            `json:"directory"`
	Time      int64             `json:"time"`
	Message   json.RawMessage   `json:"message"`
	Parts     []json.RawMessage `json:"parts"`
}

// renderSession renders a session's messages with their parts, one JSON
// line each.
func renderSession(db, session string) ([]byte, error) {
	conn, err := openRO(db)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	dir := ""
	if st, _, err := conn.Prepare(`SELECT directory FROM session WHERE id = ?`); err == nil {
		st.BindText(1, session)
		if st.Step() {
			dir = st.ColumnText(0)
		}
		st.Close()
	}
	st, _, err := conn.Prepare(`SELECT m.id, m.time_created, m.data, p.data FROM message m LEFT JOIN part p ON p.message_id = m.id
		WHERE m.session_id = ? ORDER BY m.time_created, m.id, p.id`)
	if err != nil {
		return nil, fmt.Errorf("transcripts: %s: %w", db, err)
	}
	defer st.Close()
	st.BindText(1, session)
	var out bytes.Buffer
	var cur *sessionLine
	curID := ""
	flush := func() {
		if cur != nil {
			b, _ := json.Marshal(cur)
			out.Write(b)
			out.WriteByte('\n')
		}
	}
	for st.Step() && out.Len() < MaxSession {
		if id := st.ColumnText(0); cur == nil || id != curID {
			flush()
			curID = id
			cur = &sessionLine{Session: session, Directory: dir, Time: st.ColumnInt64(1), Message: rawJSON(st.ColumnText(2))}
		}
		if p := st.ColumnText(3); p != "" {
			cur.Parts = append(cur.Parts, rawJSON(p))
		}
	}
	flush()
	return out.Bytes(), st.Err()
}

// rawJSON passes a column through when it is JSON, else as a string.
func rawJSON(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(strings.ToValidUTF8(s, "\uFFFD"))
	return b
}

// Package store is ctxhook's session store: every captured event in one
// SQLite file, indexed for full-text search twice (porter-stemmed words for
// prose, trigrams for ticket ids, paths and camelCase identifiers).
//
// A body (response or text) longer than PartSize is stored in parts: its
// head in the event's row, the rest in event_parts, and the searchable
// body is indexed part by part, so no row and no full-text document is
// ever larger than a part (see parts.go).
//
// The file lives in a 0700 directory; the database and its -wal and -shm
// files are 0600. WAL mode and a busy timeout let many hook processes write
// at once. The schema is migrated forward with PRAGMA user_version.
package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/fts5"
)

// ErrNotFound is returned for an unknown event id.
var ErrNotFound = errors.New("store: not found")

// Damaged reports an error of a store whose files are damaged, or were
// changed under the connection that read them: another connection,
// opened now, may read what this one could not.
func Damaged(err error) bool {
	return errors.Is(err, sqlite3.CORRUPT) || errors.Is(err, sqlite3.NOTADB) || errors.Is(err, sqlite3.IOERR)
}

// Options tune Open.
type Options struct {
	// BusyTimeout is how long a write waits for another writer (default 2 s).
	BusyTimeout time.Duration
	// ReadOnly opens an existing store without creating or migrating it.
	ReadOnly bool
	// Retention caps the store; writes enforce it now and then.
	Retention Retention
}

// Store is an open session store. It is not safe for concurrent use; open
// one per goroutine (SQLite serialises the writers).
type Store struct {
	retention Retention
	conn      *sqlite3.Conn
	path      string
	// version is the schema the store has (a read-only store is not
	// migrated: the readers adapt to an older one).
	version int
}

// Open opens (creating and migrating if needed) the store at path.
func Open(path string, o Options) (*Store, error) {
	if o.BusyTimeout == 0 {
		o.BusyTimeout = 2 * time.Second
	}
	dir := filepath.Dir(path)
	// SQLite creates -wal and -shm lazily, and a reader re-creates them
	// after the last writer removed them: a 077 umask for this process makes
	// sure they are always born 0600, whoever opens the store.
	platform.PrivateFiles()
	// The directory must be this user's alone (paths.EnsureDir creates it
	// so); a reader does not create it.
	if o.ReadOnly {
		if err := platform.OwnedDir(dir); err != nil && !os.IsNotExist(err) {
			return nil, fmt.Errorf("store: refusing %v", err)
		}
	} else if err := paths.EnsureDir(dir); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	// Captured output goes only into a file of this user's alone: a
	// ctxhook.db another user made first (0666, in a shared CTXHOOK_HOME)
	// would receive it, and one they can write could feed back what the
	// agent reads.
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if !o.ReadOnly {
			platform.TightenFile(path + suffix)
		}
		if err := platform.OwnedFile(path + suffix); err != nil {
			return nil, fmt.Errorf("store: refusing %v", err)
		}
	}
	flags := sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE
	if o.ReadOnly {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		flags = sqlite3.OPEN_READONLY
	}
	conn, err := openConn(path, flags)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return newStore(conn, path, o)
}

// openConn opens a connection, turning a panic of the SQLite wrapper into
// an error: setting up its memory panics where the system refuses it (on
// Windows, an emulator without VirtualAlloc2 placeholders, such as Wine
// 8.0), and a hook must then keep its event in the spool and answer, not
// crash with a status the harness takes for "block".
func openConn(path string, flags sqlite3.OpenFlag) (conn *sqlite3.Conn, err error) {
	defer func() {
		if r := recover(); r != nil {
			conn, err = nil, fmt.Errorf("SQLite could not start: %v", r)
		}
	}()
	return sqlite3.OpenFlags(path, flags)
}

// newStore sets up a store on an open connection.
func newStore(conn *sqlite3.Conn, path string, o Options) (*Store, error) {
	s := &Store{conn: conn, path: path, retention: o.Retention}
	if err := s.init(o); err != nil {
		conn.Close()
		return nil, err
	}
	if !o.ReadOnly {
		s.tightenModes()
	}
	return s, nil
}

func (s *Store) init(o Options) error {
	// The busy timeout first: registering FTS5 already reads the schema,
	// which waits on a writer migrating it.
	if err := s.conn.BusyTimeout(o.BusyTimeout); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if err := fts5.Register(s.conn); err != nil {
		return fmt.Errorf("store: fts5: %w", err)
	}
	if o.ReadOnly {
		v, err := s.userVersion()
		s.version = v
		if err == nil && v == 0 {
			// A file without the schema yet: the first writer (the daemon
			// just started, a hook) has created it and is migrating it, or
			// a store emptied by hand. For a reader it is a store that does
			// not exist yet, not a damaged one: doctor right after install
			// said "no such table: events".
			return fmt.Errorf("store: %s has no schema yet: %w", s.path, fs.ErrNotExist)
		}
		return err
	}
	// Switching a new database to WAL does not wait on the busy handler:
	// when another process is doing the same, retry until the timeout.
	for deadline := time.Now().Add(o.BusyTimeout); ; time.Sleep(10 * time.Millisecond) {
		err := s.conn.Exec(journalPragmas)
		if err == nil {
			break
		}
		if !errors.Is(err, sqlite3.BUSY) && !errors.Is(err, sqlite3.LOCKED) || time.Now().After(deadline) {
			return fmt.Errorf("store: pragmas: %w", err)
		}
	}
	return s.migrate()
}

// journalPragmas: a WAL lets readers go on while a hook writes; where
// its shared memory cannot be mapped (memory_windows.go), a rollback
// journal, with which a reader waits out a write (the busy timeout).
var journalPragmas = func() string {
	if sharedMemory {
		return `PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON`
	}
	return `PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON`
}()

// tightenModes forces 0600 on the database files that exist, in case they
// were created by an older version or under another umask.
func (s *Store) tightenModes() {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Chmod(s.path+suffix, 0o600)
	}
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close closes the store.
func (s *Store) Close() error { return s.conn.Close() }

// migrations[i] moves the schema from user_version i to i+1.
var migrations = []string{
	`CREATE TABLE events(
		id INTEGER PRIMARY KEY,
		ts_ms INTEGER NOT NULL,
		session TEXT NOT NULL,
		harness TEXT NOT NULL,
		hook_event TEXT NOT NULL,
		category TEXT NOT NULL,
		tool TEXT NOT NULL DEFAULT '',
		server TEXT NOT NULL DEFAULT '',
		tool_use_id TEXT NOT NULL DEFAULT '',
		cwd TEXT NOT NULL DEFAULT '',
		args TEXT NOT NULL DEFAULT '',
		response TEXT NOT NULL DEFAULT '',
		text TEXT NOT NULL DEFAULT '',
		response_bytes INTEGER NOT NULL DEFAULT 0,
		truncated INTEGER NOT NULL DEFAULT 0,
		redactions INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX events_session ON events(session, id);
	CREATE INDEX events_server ON events(server, id);
	CREATE VIRTUAL TABLE events_fts USING fts5(tool, server, args, body,
		content='', contentless_delete=1, tokenize='porter unicode61');
	CREATE VIRTUAL TABLE events_tri USING fts5(body,
		content='', contentless_delete=1, tokenize='trigram');
	CREATE TABLE tallies(
		session TEXT NOT NULL,
		name TEXT NOT NULL,
		count INTEGER NOT NULL,
		PRIMARY KEY(session, name)
	) WITHOUT ROWID;`,
	`ALTER TABLE events ADD COLUMN event_key TEXT NOT NULL DEFAULT '';
	ALTER TABLE events ADD COLUMN context_bytes INTEGER NOT NULL DEFAULT 0;
	CREATE INDEX events_key ON events(event_key) WHERE event_key != '';
	CREATE INDEX events_time ON events(ts_ms);`,
	`CREATE TABLE chunks(
		id INTEGER PRIMARY KEY,
		ts_ms INTEGER NOT NULL,
		session TEXT NOT NULL,
		harness TEXT NOT NULL,
		path TEXT NOT NULL,
		cwd TEXT NOT NULL DEFAULT '',
		text TEXT NOT NULL,
		bytes INTEGER NOT NULL DEFAULT 0,
		redactions INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX chunks_session ON chunks(session, id);
	CREATE INDEX chunks_path ON chunks(path);
	CREATE VIRTUAL TABLE chunks_fts USING fts5(body, content='', contentless_delete=1, tokenize='porter unicode61');
	CREATE VIRTUAL TABLE chunks_tri USING fts5(body, content='', contentless_delete=1, tokenize='trigram');
	CREATE TABLE transcripts(
		path TEXT PRIMARY KEY,
		offset INTEGER NOT NULL,
		updated_ms INTEGER NOT NULL
	) WITHOUT ROWID;`,
	// Batches already stored (a spool line, a hook's request), so one
	// applied twice (its writer died between commit and delete; its
	// daemon took it and died before answering) is stored once.
	`CREATE TABLE spool_applied(
		name TEXT PRIMARY KEY,
		ts_ms INTEGER NOT NULL
	) WITHOUT ROWID;
	CREATE INDEX spool_applied_time ON spool_applied(ts_ms);`,
	// Bodies in parts (parts.go). The sizes are NULL for events stored
	// before: their bodies are whole in the row.
	`ALTER TABLE events ADD COLUMN response_size INTEGER;
	ALTER TABLE events ADD COLUMN text_size INTEGER;
	ALTER TABLE events ADD COLUMN response_parts INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE events ADD COLUMN text_parts INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE events ADD COLUMN response_form TEXT NOT NULL DEFAULT '';
	CREATE TABLE event_parts(
		id INTEGER PRIMARY KEY,
		event_id INTEGER NOT NULL,
		field TEXT NOT NULL,
		seq INTEGER NOT NULL,
		offset INTEGER NOT NULL,
		bytes INTEGER NOT NULL,
		indexed INTEGER NOT NULL DEFAULT 0,
		data TEXT NOT NULL
	);
	CREATE UNIQUE INDEX event_parts_seq ON event_parts(event_id, field, seq);
	CREATE VIRTUAL TABLE event_parts_fts USING fts5(body, content='', contentless_delete=1, tokenize='porter unicode61');
	CREATE VIRTUAL TABLE event_parts_tri USING fts5(body, content='', contentless_delete=1, tokenize='trigram');`,
	// Events counted per session and in all, kept by triggers, so that a
	// write checks the retention caps at the cost of two lookups
	// (retention.go).
	`CREATE TABLE event_counts(
		session TEXT PRIMARY KEY,
		n INTEGER NOT NULL
	) WITHOUT ROWID;
	CREATE TABLE event_total(
		one INTEGER PRIMARY KEY CHECK (one = 1),
		n INTEGER NOT NULL
	);
	INSERT INTO event_counts SELECT session, count(*) FROM events GROUP BY session;
	INSERT INTO event_total VALUES(1, (SELECT count(*) FROM events));
	CREATE TRIGGER events_counted AFTER INSERT ON events BEGIN
		INSERT INTO event_counts VALUES(new.session, 1) ON CONFLICT(session) DO UPDATE SET n = n + 1;
		UPDATE event_total SET n = n + 1;
	END;
	CREATE TRIGGER events_uncounted AFTER DELETE ON events BEGIN
		UPDATE event_counts SET n = n - 1 WHERE session = old.session;
		DELETE FROM event_counts WHERE session = old.session AND n <= 0;
		UPDATE event_total SET n = n - 1;
	END;`,
	// The highest event id ever given out. SQLite reuses a deleted
	// highest rowid (events has no AUTOINCREMENT); the shipper resumes
	// after the highest local id the shared store holds, so an id given
	// again after a purge would never be shipped. insertEvents takes the
	// next id from here; the trigger keeps it for any other insert.
	`CREATE TABLE event_ids(
		one INTEGER PRIMARY KEY CHECK (one = 1),
		last INTEGER NOT NULL
	);
	INSERT INTO event_ids VALUES(1, (SELECT coalesce(max(id), 0) FROM events));
	CREATE TRIGGER events_id_kept AFTER INSERT ON events BEGIN
		UPDATE event_ids SET last = new.id WHERE new.id > last;
	END;`,
}

// SchemaVersion is the user_version a fully migrated store has.
var SchemaVersion = len(migrations)

func (s *Store) migrate() error {
	v, err := s.userVersion()
	if err != nil {
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("store: %s has schema %d, newer than this ctxhook (%d); upgrade ctxhook", s.path, v, len(migrations))
	}
	for v < len(migrations) {
		// The version is read again under the write lock: another process
		// may have migrated since (two first hooks at once).
		err := s.tx(func() error {
			if v, err = s.userVersion(); err != nil || v >= len(migrations) {
				return err
			}
			if err := s.conn.Exec(migrations[v]); err != nil {
				return err
			}
			return s.conn.Exec(fmt.Sprintf("PRAGMA user_version=%d", v+1))
		})
		if err != nil {
			return fmt.Errorf("store: migrate to %d: %w", v+1, err)
		}
		if v, err = s.userVersion(); err != nil {
			return err
		}
	}
	s.version = v
	return nil
}

func (s *Store) userVersion() (int, error) {
	st, _, err := s.conn.Prepare(`PRAGMA user_version`)
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	defer st.Close()
	if !st.Step() {
		return 0, fmt.Errorf("store: user_version: %w", st.Err())
	}
	return st.ColumnInt(0), nil
}

// tx runs fn in an IMMEDIATE transaction: the write lock is taken up front,
// so a busy store fails fast at BEGIN instead of deadlocking mid-way.
func (s *Store) tx(fn func() error) (err error) {
	if err := s.conn.Exec(`BEGIN IMMEDIATE`); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			s.conn.Exec(`ROLLBACK`)
		}
	}()
	if err = fn(); err != nil {
		return err
	}
	return s.conn.Exec(`COMMIT`)
}

// Apply writes events and tallies in one transaction, and returns the new
// event ids in order. Either all of it is stored or none of it.
func (s *Store) Apply(events []abi.Event, tallies []abi.Effect) (ids []int64, err error) {
	return s.ApplyOnce(Batch{}, events, tallies)
}

// Batch names a batch of effects that may be applied more than once: a
// spool file's line, or a hook request (the hook client names each, and
// a hook it re-runs in-process after its daemon took the request keeps
// the name). A name already applied is skipped, in the same
// transaction. The empty name is never skipped.
type Batch struct {
	Name string
}

// ApplyOnce is Apply for a batch that may have been applied before.
func (s *Store) ApplyOnce(b Batch, events []abi.Event, tallies []abi.Effect) (ids []int64, err error) {
	err = s.tx(func() error {
		if b.Name != "" {
			if fresh, err := s.markApplied(b.Name); err != nil || !fresh {
				return err // !fresh: stored before
			}
		}
		var err error
		if ids, err = s.insertEvents(events); err != nil {
			return err
		}
		if err := s.addTallies(tallies); err != nil {
			return err
		}
		// Over a cap is not a failed write (the events are in), but the
		// caps hold whenever the write is seen.
		return s.holdCaps(events)
	})
	if err != nil {
		return nil, fmt.Errorf("store: write: %w", err)
	}
	return ids, nil
}

// markApplied notes a batch's name inside the write's transaction: fresh
// is false when a batch of that name was applied before.
func (s *Store) markApplied(name string) (fresh bool, err error) {
	// A name is forgotten after a week: no retry comes that late.
	if err := s.conn.Exec(`DELETE FROM spool_applied WHERE ts_ms < ` + strconv.FormatInt(time.Now().Add(-7*24*time.Hour).UnixMilli(), 10)); err != nil {
		return false, err
	}
	mark, _, err := s.conn.Prepare(`INSERT OR IGNORE INTO spool_applied(name, ts_ms) VALUES(?, ?)`)
	if err != nil {
		return false, err
	}
	bindAll(mark, name, time.Now().UnixMilli())
	err = mark.Exec()
	mark.Close()
	if err != nil {
		return false, err
	}
	return s.conn.Changes() != 0, nil
}

// eventWriter inserts events and indexes them, inside ApplyOnce's
// transaction.
type eventWriter struct {
	s             *Store
	ins, fts, tri *sqlite3.Stmt
	parts         *partWriter // made for the first body in parts
}

// insertEvents inserts events (their heads, indexes and parts) and
// returns their ids.
func (s *Store) insertEvents(events []abi.Event) (ids []int64, err error) {
	w := &eventWriter{s: s}
	defer w.close()
	// The id is one past the highest ever given (event_ids), never a
	// purged one again.
	if w.ins, _, err = s.conn.Prepare(`INSERT INTO events(id, ts_ms, session, harness, hook_event, category, tool, server,
			tool_use_id, cwd, args, response, text, response_bytes, truncated, redactions, event_key, context_bytes,
			response_size, text_size, response_parts, text_parts, response_form)
			VALUES((SELECT last + 1 FROM event_ids),?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`); err != nil {
		return nil, err
	}
	if w.fts, _, err = s.conn.Prepare(`INSERT INTO events_fts(rowid, tool, server, args, body) VALUES(?,?,?,?,?)`); err != nil {
		return nil, err
	}
	if w.tri, _, err = s.conn.Prepare(`INSERT INTO events_tri(rowid, body) VALUES(?,?)`); err != nil {
		return nil, err
	}
	size := partSize()
	for _, e := range events {
		id, err := w.insert(e, size)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func (w *eventWriter) close() {
	for _, st := range []*sqlite3.Stmt{w.ins, w.fts, w.tri} {
		if st != nil {
			st.Close()
		}
	}
	w.parts.close()
}

// insert stores one event: its row with the heads of its bodies, its
// word and trigram index entries, and the rest of its bodies in parts.
func (w *eventWriter) insert(e abi.Event, size int) (int64, error) {
	resp, text := split(e.Response, size), split(e.Text, size)
	respSize := int64(len(e.Response))
	if e.ResponseForm != "" {
		// Rebuilt from the text when read (derived.go): its size is
		// what it will be then.
		respSize = derivedSize(e.ResponseForm, e.Text)
	}
	bindAll(w.ins, e.TimeMS, e.Session, e.Harness, e.HookEvent, e.Category, e.Tool, e.Server,
		e.ToolUseID, e.Cwd, e.Args, resp[0], text[0], int64(e.ResponseBytes), e.Truncated, int64(e.Redactions),
		e.Key, int64(e.ContextBytes), respSize, int64(len(e.Text)), int64(len(resp)-1), int64(len(text)-1), e.ResponseForm)
	if err := w.ins.Exec(); err != nil {
		return 0, err
	}
	id := w.s.conn.LastInsertRowID()
	searched, body := FieldText, text[0]
	if e.Text == "" {
		searched, body = FieldResponse, resp[0]
	}
	bindAll(w.fts, id, e.Tool, e.Server, indexText(e.Args), indexText(body))
	if err := w.fts.Exec(); err != nil {
		return 0, err
	}
	bindAll(w.tri, id, e.Tool+"\n"+indexText(e.Args)+"\n"+trigramText(indexText(trigramHead(body)), 0))
	if err := w.tri.Exec(); err != nil {
		return 0, err
	}
	if len(resp) == 1 && len(text) == 1 {
		return id, nil
	}
	if w.parts == nil {
		var err error
		if w.parts, err = w.s.newPartWriter(); err != nil {
			return 0, err
		}
	}
	if err := w.parts.write(id, FieldResponse, resp, searched == FieldResponse); err != nil {
		return 0, err
	}
	return id, w.parts.write(id, FieldText, text, searched == FieldText)
}

// addTallies adds tallies to their sessions' counts.
func (s *Store) addTallies(tallies []abi.Effect) error {
	up, _, err := s.conn.Prepare(`INSERT INTO tallies(session, name, count) VALUES(?,?,?)
			ON CONFLICT(session, name) DO UPDATE SET count = count + excluded.count`)
	if err != nil {
		return err
	}
	defer up.Close()
	for _, t := range tallies {
		bindAll(up, t.Session, t.Name, int64(t.Count))
		if err := up.Exec(); err != nil {
			return err
		}
	}
	return nil
}

// searchBody is what the indexes see of a response: the readable text when
// the plugin rendered one, else the raw response.
func searchBody(e abi.Event) string {
	if e.Text != "" {
		return e.Text
	}
	return e.Response
}

func bindAll(st *sqlite3.Stmt, args ...any) {
	st.ClearBindings()
	for i, a := range args {
		switch v := a.(type) {
		case string:
			st.BindText(i+1, v)
		case int64:
			st.BindInt64(i+1, v)
		case bool:
			st.BindBool(i+1, v)
		default:
			panic(fmt.Sprintf("store: cannot bind %T", a))
		}
	}
}

// HoldWriteLock takes the database's write lock until release is called,
// so tests can check how hooks behave behind a busy writer.
func (s *Store) HoldWriteLock() (release func(), err error) {
	if err := s.conn.Exec(`BEGIN IMMEDIATE`); err != nil {
		return nil, err
	}
	return func() { s.conn.Exec(`ROLLBACK`) }, nil
}

// DeleteEvents removes events, their parts and their index entries.
func (s *Store) DeleteEvents(ids []int64) error {
	return s.tx(func() error {
		for _, sql := range []string{
			`DELETE FROM event_parts_fts WHERE rowid IN (SELECT id FROM event_parts WHERE event_id = ?1 AND indexed & 1)`,
			`DELETE FROM event_parts_tri WHERE rowid IN (SELECT id FROM event_parts WHERE event_id = ?1 AND indexed & 2)`,
			`DELETE FROM event_parts WHERE event_id = ?1`,
			`DELETE FROM events_fts WHERE rowid = ?1`, `DELETE FROM events_tri WHERE rowid = ?1`, `DELETE FROM events WHERE id = ?1`,
		} {
			st, _, err := s.conn.Prepare(sql)
			if err != nil {
				return err
			}
			for _, id := range ids {
				st.BindInt64(1, id)
				if err := st.Exec(); err != nil {
					st.Close()
					return err
				}
				st.Reset()
			}
			st.Close()
		}
		return nil
	})
}

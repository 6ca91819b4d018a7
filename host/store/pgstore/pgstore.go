// Package pgstore is ctxhook's shared store on PostgreSQL: the events of
// a team's (or one user's several) machines in one database, searched
// with PostgreSQL's own full-text search (tsvector, GIN, the english
// configuration) fused with pg_trgm substring matches for identifiers
// such as CVX-5909, as the SQLite store fuses its two FTS5 indexes.
//
// Hooks never talk to it: they write the local SQLite store as always,
// and Ship copies what the local store holds, each event exactly once,
// whenever the database can be reached. Only events leave the machine
// (redacted by the plugin before they were first written); relay tokens,
// session state and tallies stay local.
package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/jackc/pgx/v5"
)

// Options tune Open.
type Options struct {
	// Machine names this machine in the rows it writes (default: the host name).
	Machine string
	// Team lists the servers whose events are shared with the team; the
	// rest are private to their owner.
	Team map[string]bool
	// Timeout bounds each statement (default 10 s).
	Timeout time.Duration
}

// Store is an open connection to the shared store, as one database role.
// It is not safe for concurrent use; open one per goroutine.
type Store struct {
	conn *pgx.Conn
	opts Options
	user string
}

var _ store.Backend = (*Store)(nil)

// ErrSchema is returned by Open when the database has no (or an older)
// ctxhook schema: its administrator runs `ctxhook store init`.
var ErrSchema = errors.New("pgstore: the database has no current ctxhook schema (run ctxhook store init as its administrator)")

// Open connects to url and checks the schema.
func Open(ctx context.Context, url string, o Options) (*Store, error) {
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Machine == "" {
		o.Machine = hostname()
	}
	cctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	conn, err := connect(cctx, url)
	if err != nil {
		return nil, err
	}
	s := &Store{conn: conn, opts: o}
	if err := conn.QueryRow(cctx, `SELECT current_user`).Scan(&s.user); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	var v int
	err = conn.QueryRow(cctx, `SELECT ctxhook_search.schema_version()`).Scan(&v)
	if err != nil || v < SchemaVersion {
		conn.Close(ctx)
		return nil, ErrSchema
	}
	if v > SchemaVersion {
		conn.Close(ctx)
		return nil, fmt.Errorf("pgstore: the database has schema %d, newer than this ctxhook (%d); upgrade ctxhook", v, SchemaVersion)
	}
	return s, nil
}

// User is the database role this store reads and writes as: the owner
// of every row it writes.
func (s *Store) User() string { return s.user }

// Machine is the machine name this store writes.
func (s *Store) Machine() string { return s.opts.Machine }

// Close closes the connection.
func (s *Store) Close() error { return s.conn.Close(context.Background()) }

// ctx is the context of one statement.
func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.opts.Timeout)
}

// Init applies the migrations the database lacks, as its administrator,
// and reports the versions it moved between.
func Init(ctx context.Context, url string) (from, to int, err error) {
	conn, err := connect(ctx, url)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1::bigint)`, lockKey); err != nil {
		return 0, 0, fmt.Errorf("pgstore: %w", err)
	}
	defer conn.Exec(ctx, `SELECT pg_advisory_unlock($1::bigint)`, lockKey)
	if _, err := conn.Exec(ctx, schemaTable); err != nil {
		return 0, 0, fmt.Errorf("pgstore: %w", err)
	}
	if err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM ctxhook_schema`).Scan(&from); err != nil {
		return 0, 0, fmt.Errorf("pgstore: %w", err)
	}
	if from > SchemaVersion {
		return from, from, fmt.Errorf("pgstore: the database has schema %d, newer than this ctxhook (%d)", from, SchemaVersion)
	}
	for v := from; v < SchemaVersion; v++ {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO ctxhook_schema(version) VALUES($1::int)`, v+1)
			return err
		})
		if err != nil {
			return from, v, fmt.Errorf("pgstore: migrate to %d: %w", v+1, err)
		}
	}
	return from, SchemaVersion, checkSchemas(ctx, conn)
}

// AddUser creates (or updates) a login role for one user, a member of
// ctxhook_users, as the administrator. The roles ctxhook made itself are
// refused: ctxhook_users must stay a group that cannot log in, and
// ctxhook_search the functions' owner. The name is quoted as an
// identifier; the password is sent only as its SCRAM-SHA-256 verifier,
// so it never reaches the server's logs or pg_stat_statements.
func AddUser(ctx context.Context, adminURL, user, password string) error {
	conn, err := connect(ctx, adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if reservedRoles[user] {
		return fmt.Errorf("pgstore: %q is ctxhook's own role, not a user's", user)
	}
	id := pgx.Identifier{user}.Sanitize()
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1::text)`, user).Scan(&exists); err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	verb := "CREATE"
	if exists {
		verb = "ALTER"
	}
	verifier, err := scramVerifier(password)
	if err != nil {
		return err
	}
	lit, err := literal(conn, verifier)
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, verb+` ROLE `+id+` LOGIN PASSWORD `+lit); err != nil {
		return fmt.Errorf("pgstore: %s role: %w", verb, err)
	}
	if err := buildMemberIndexes(ctx, conn, user); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, `GRANT ctxhook_users TO `+id); err != nil {
		return fmt.Errorf("pgstore: grant: %w", err)
	}
	return nil
}

// buildMemberIndexes builds user's trigram and word indexes (as
// memberIndexes names them) with CREATE INDEX CONCURRENTLY, which takes
// no lock that stops shipping or searches, before the user becomes a
// member: a failed build leaves no member without its indexes. A build
// interrupted before leaves an invalid index that IF NOT EXISTS would
// keep: it is dropped first. A wait for another transaction's lock ends
// after addUserLockTimeout with an error, and add-user can be run again.
func buildMemberIndexes(ctx context.Context, conn *pgx.Conn, user string) error {
	name, err := literal(conn, user)
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, `SET lock_timeout = '`+addUserLockTimeout+`'`); err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	for _, ix := range []struct{ kind, using string }{{"trgm", "doc public.gin_trgm_ops"}, {"words", "words"}} {
		var rel string
		err := conn.QueryRow(ctx, `SELECT 'ctxhook_docs_' || $1::text || '_' || left(md5($2::text), 16)`, ix.kind, user).Scan(&rel)
		if err != nil {
			return fmt.Errorf("pgstore: %w", err)
		}
		var invalid bool
		err = conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('public.' || quote_ident($1::text))
			AND NOT indisvalid)`, rel).Scan(&invalid)
		if err != nil {
			return fmt.Errorf("pgstore: %w", err)
		}
		id := pgx.Identifier{"public", rel}.Sanitize()
		if invalid {
			if _, err := conn.Exec(ctx, `DROP INDEX CONCURRENTLY IF EXISTS `+id); err != nil {
				return fmt.Errorf("pgstore: the user's search indexes: %w", err)
			}
		}
		sql := `CREATE INDEX CONCURRENTLY IF NOT EXISTS ` + pgx.Identifier{rel}.Sanitize() + ` ON public.ctxhook_docs USING gin(` +
			ix.using + `) WHERE owner = ` + name + `::name AND visibility = 'private'`
		if _, err := conn.Exec(ctx, sql); err != nil {
			return fmt.Errorf("pgstore: the user's search indexes: %w", err)
		}
	}
	return nil
}

// addUserLockTimeout bounds add-user's waits for the others' transactions.
const addUserLockTimeout = "30s"

// reservedRoles are the roles the schema creates.
var reservedRoles = map[string]bool{"ctxhook_users": true, "ctxhook_search": true}

// literal quotes s as a string literal, by the server's own quote_literal.
func literal(conn *pgx.Conn, s string) (string, error) {
	var q string
	if err := conn.QueryRow(context.Background(), `SELECT quote_literal($1::text)`, s).Scan(&q); err != nil {
		return "", fmt.Errorf("pgstore: %w", err)
	}
	return q, nil
}

// Where names a URL's server and database without its user or password,
// for messages and reports.
func Where(url string) (string, error) {
	c, err := pgx.ParseConfig(url)
	if err != nil {
		return "", errors.New("pgstore: not a PostgreSQL URL")
	}
	return fmt.Sprintf("%s:%d/%s", c.Host, c.Port, c.Database), nil
}

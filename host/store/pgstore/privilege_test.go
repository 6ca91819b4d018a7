package pgstore

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/storetest"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestMemberHoldsNoPrivilege: no member, ctxhook_users or PUBLIC holds
// any privilege on a relation of the schema (tables, sequences, indexes,
// as \dp lists them); ctxhook_users cannot log in and owns nothing; and
// after SET ROLE ctxhook_users a member still cannot SELECT, EXPLAIN or
// LOCK a table, while what it writes through the functions is owned by
// its login role.
func TestMemberHoldsNoPrivilege(t *testing.T) {
	needPG(t)
	ctx := context.Background()
	alice, aliceURL := newUser(t)
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	rows, _ := admin.Query(ctx, `SELECT c.oid::regclass::text || ' ' || coalesce(a.grantee::regrole::text, 'PUBLIC') || ' ' || a.privilege_type
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace, aclexplode(c.relacl) a
		WHERE (c.relname LIKE 'ctxhook%' OR n.nspname = 'ctxhook_search')
		AND a.grantee NOT IN (c.relowner, 'ctxhook_search'::regrole)`)
	grants, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(grants) > 0 {
		t.Errorf("privileges on ctxhook's relations beyond their owner and ctxhook_search: %v %v", grants, err)
	}
	var held []string
	for _, role := range []string{alice, "ctxhook_users"} {
		rows, _ := admin.Query(ctx, `SELECT c.oid::regclass::text || ' ' || p FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace,
			unnest(ARRAY['SELECT','INSERT','UPDATE','DELETE','TRUNCATE','REFERENCES','TRIGGER']) AS p
			WHERE (c.relname LIKE 'ctxhook%' OR n.nspname = 'ctxhook_search') AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
			AND has_table_privilege($1::text, c.oid, p)
			UNION ALL SELECT c.oid::regclass::text || ' ' || p FROM pg_class c, unnest(ARRAY['USAGE','SELECT','UPDATE']) AS p
			WHERE c.relname LIKE 'ctxhook%' AND c.relkind = 'S' AND has_sequence_privilege($1::text, c.oid, p)`, role)
		h, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, h...)
	}
	if len(held) > 0 {
		t.Errorf("a member holds privileges on ctxhook's relations: %v", held)
	}
	var login bool
	var owned int
	err = admin.QueryRow(ctx, `SELECT rolcanlogin, (SELECT count(*) FROM pg_class WHERE relowner = r.oid)
		+ (SELECT count(*) FROM pg_proc WHERE proowner = r.oid) + (SELECT count(*) FROM pg_namespace WHERE nspowner = r.oid)
		+ (SELECT count(*) FROM pg_type WHERE typowner = r.oid) FROM pg_roles r WHERE rolname = 'ctxhook_users'`).Scan(&login, &owned)
	if err != nil || login || owned != 0 {
		t.Errorf("ctxhook_users can log in (%v) or owns %d objects: %v", login, owned, err)
	}
	asGroup(t, aliceURL, alice)
}

// asGroup: alice, after SET ROLE ctxhook_users, is refused every read,
// EXPLAIN and LOCK of a table, and the event she writes through the
// functions is hers, not the group's.
func asGroup(t *testing.T, url, user string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `SET ROLE ctxhook_users`); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`SELECT 1 FROM ctxhook_docs LIMIT 1`,
		`SELECT 1 FROM ctxhook_schema LIMIT 1`,
		`EXPLAIN SELECT 1 FROM ctxhook_docs WHERE doc ^@ 'x'`,
		`EXPLAIN SELECT 1 FROM ctxhook_events WHERE body_text = 'x'`,
		`BEGIN; LOCK TABLE ctxhook_events IN ACCESS SHARE MODE; COMMIT`,
		`SELECT nextval('ctxhook_events_id_seq')`,
	} {
		_, err := conn.Exec(ctx, sql)
		conn.Exec(ctx, `ROLLBACK`)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "42501" {
			t.Errorf("after SET ROLE ctxhook_users, %q: %v, want 42501", sql, err)
		}
	}
	s := &Store{conn: conn, opts: Options{Machine: "grp", Timeout: 10e9}}
	ids, err := s.Apply([]abi.Event{storetest.Ev("grp", "vault", "mcp__vault__read", "written as the group")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Purge(store.PurgeFilter{All: true}, false, false)
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	rows, _ := admin.Query(ctx, `SELECT owner::text FROM ctxhook_events WHERE id = $1::bigint
		UNION ALL SELECT owner::text FROM ctxhook_docs WHERE event_id = $1::bigint`, ids[0])
	owners, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(owners) != 2 || slices.ContainsFunc(owners, func(o string) bool { return o != user }) {
		t.Errorf("rows written after SET ROLE ctxhook_users are owned by %v, want %s: %v", owners, user, err)
	}
}

package pgstore

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestFunctionsGiveUpOnALock: while the administrator holds a lock on
// the tables (DDL, a migration), a member's search, ship and read give
// up with lock_not_available after the functions' own lock_timeout: a
// function's SET lock_timeout is read when the wait starts, so it holds
// even though the member's session sets none.
func TestFunctionsGiveUpOnALock(t *testing.T) {
	needPG(t)
	ctx := context.Background()
	_, aliceURL := newUser(t)
	member, err := pgx.Connect(ctx, aliceURL)
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close(ctx)
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	tx, err := admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `LOCK TABLE ctxhook_docs, ctxhook_events IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`SELECT count(*) FROM ctxhook_search.substrings('%abc%')`,
		`SELECT ctxhook_search.cursor('m')`,
	} {
		_, err := member.Exec(ctx, sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "55P03" {
			t.Errorf("%s behind the administrator's lock: %v, want 55P03", sql, err)
		}
	}
}

package pgstore

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/internal/pgcluster"
	"github.com/jackc/pgx/v5"
)

// TestAddUserSendsNoPassword: with every statement of the administrator
// logged (parameters included), AddUser's creating and resetting a role
// leaves no trace of the password in the server's log, the role stores
// a SCRAM-SHA-256 verifier, and the user logs in with the password.
func TestAddUserSendsNoPassword(t *testing.T) {
	needPG(t)
	ctx := context.Background()
	super, err := pgx.Connect(ctx, cluster.SuperURL("ctxhook"))
	if err != nil {
		t.Fatal(err)
	}
	defer super.Close(ctx)
	if _, err := super.Exec(ctx, `ALTER ROLE ctxadmin SET log_statement = 'all'`); err != nil {
		t.Fatal(err)
	}
	defer super.Exec(ctx, `ALTER ROLE ctxadmin RESET log_statement`)
	name := "scramuser"
	for i, pw := range []string{"plain-" + pgcluster.RandomPassword(), "reset-" + pgcluster.RandomPassword() + "-\u00e9"} {
		if err := AddUser(ctx, adminURL, name, pw); err != nil {
			t.Fatal(err)
		}
		if log := cluster.Log(); strings.Contains(log, pw) || (i == 0 && !strings.Contains(log, "SCRAM-SHA-256$4096:")) {
			t.Fatalf("the password (or no verifier) in the server's log")
		}
		var stored string
		if err := super.QueryRow(ctx, `SELECT rolpassword FROM pg_authid WHERE rolname = $1::text`, name).Scan(&stored); err != nil || !strings.HasPrefix(stored, "SCRAM-SHA-256$4096:") {
			t.Fatalf("stored %q, %v", stored, err)
		}
		s, err := Open(ctx, cluster.URL(name, pw, "ctxhook"), Options{})
		if err != nil {
			t.Fatalf("cannot log in with the password: %v", err)
		}
		s.Close()
	}
}

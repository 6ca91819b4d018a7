package pgstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/ctxhook/ctxhook/internal/pgcluster"
	"github.com/jackc/pgx/v5"
)

// cluster is the tests' one PostgreSQL: a throwaway cluster started by
// TestMain, with a database ctxhook owned by a non-superuser
// administrator (as on a managed PostgreSQL), its schema applied by Init.
var (
	cluster  *pgcluster.Cluster
	adminURL string
	noPG     error
)

// adminPassword is random: any local user can reach the cluster's port.
var adminPassword = pgcluster.RandomPassword()

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "ctxhook-pg-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	cluster, err = pgcluster.Start(dir)
	if errors.Is(err, pgcluster.ErrNoPostgres) {
		noPG = err
		return m.Run()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cluster.Stop()
	if err := setUp(); err != nil {
		fmt.Fprintln(os.Stderr, err, cluster.Log())
		return 1
	}
	return m.Run()
}

func setUp() error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, cluster.SuperURL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, sql := range []string{
		`CREATE ROLE ctxadmin LOGIN CREATEROLE PASSWORD '` + adminPassword + `'`,
		`CREATE DATABASE ctxhook OWNER ctxadmin`,
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return err
		}
	}
	adminURL = cluster.URL("ctxadmin", adminPassword, "ctxhook")
	_, _, err = Init(ctx, adminURL)
	return err
}

// needPG skips a test when no PostgreSQL is installed (.ci/run installs it).
func needPG(t testing.TB) {
	t.Helper()
	if noPG != nil {
		t.Skipf("no PostgreSQL: %v", noPG)
	}
}

var userSeq atomic.Int64

// newUser creates a fresh database role (a new teammate) and returns its
// name and URL.
func newUser(t testing.TB) (string, string) {
	t.Helper()
	name := fmt.Sprintf("user%d", userSeq.Add(1))
	pw := pgcluster.RandomPassword()
	if err := AddUser(context.Background(), adminURL, name, pw); err != nil {
		t.Fatal(err)
	}
	return name, cluster.URL(name, pw, "ctxhook")
}

func openAs(t testing.TB, url string, o Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

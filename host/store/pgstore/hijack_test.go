package pgstore

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/storetest"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/jackc/pgx/v5"
)

// plants are functions a hostile member creates in public, each a looser
// overload of one the store calls with a bind parameter; called, they
// would run as the victim (here they only mark their results).
var plants = []string{
	`CREATE FUNCTION public.left(text, text) RETURNS text LANGUAGE sql AS $$ SELECT 'HIJACKED' $$`,
	`CREATE FUNCTION public.plainto_tsquery(text, text) RETURNS tsquery LANGUAGE sql
		AS $$ SELECT 'hijacked'::tsquery $$`,
	`CREATE FUNCTION public.substring(bytea, text, text) RETURNS bytea LANGUAGE sql AS $$ SELECT 'HIJACKED'::bytea $$`,
	`CREATE FUNCTION public.convert_to(text, text) RETURNS bytea LANGUAGE sql AS $$ SELECT 'HIJACKED'::bytea $$`,
}

// TestPlantedFunctionsNotCalled: on a database where members may CREATE
// in public (PostgreSQL 14's default), functions one member plants there
// are not called by another member's search, get_event or body reads,
// and Init refuses the database, naming the REVOKE that fixes it.
func TestPlantedFunctionsNotCalled(t *testing.T) {
	needPG(t)
	ctx := context.Background()
	super, err := pgx.Connect(ctx, cluster.SuperURL("ctxhook"))
	if err != nil {
		t.Fatal(err)
	}
	defer super.Close(ctx)
	exec := func(sql string) {
		t.Helper()
		if _, err := super.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	exec(`GRANT CREATE ON SCHEMA public TO PUBLIC`)
	defer exec(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`)
	_, aliceURL := newUser(t)
	_, malloryURL := newUser(t)
	mallory, err := pgx.Connect(ctx, malloryURL)
	if err != nil {
		t.Fatal(err)
	}
	defer mallory.Close(ctx)
	for _, sql := range plants {
		if _, err := mallory.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	defer exec(`DROP FUNCTION public.left(text, text), public.plainto_tsquery(text, text),
		public.substring(bytea, text, text), public.convert_to(text, text)`)

	a := openAs(t, aliceURL, Options{Machine: "laptop"})
	defer a.Close()
	defer a.Purge(store.PurgeFilter{All: true}, false, false)
	ids, err := a.Apply([]abi.Event{storetest.Ev("alice-h", "vault", "mcp__vault__read", "secret note QX-7781 for payroll")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := a.Event(ids[0])
	if err != nil || strings.Contains(e.Text+e.Response, "HIJACKED") || !strings.Contains(e.Text, "QX-7781") {
		t.Fatalf("get_event called a planted function: %q, %v", e.Text, err)
	}
	body, err := a.ReadBody(ids[0], store.FieldText, 0, 1000)
	if err != nil || !strings.Contains(body, "QX-7781") {
		t.Fatalf("read_body called a planted function: %q, %v", body, err)
	}
	res, err := a.SearchResult(store.ParseQuery("payroll"), store.SearchOptions{Session: "alice-h"})
	if err != nil || len(res.Hits) != 1 || strings.Contains(res.Hits[0].Event.Text, "HIJACKED") {
		t.Fatalf("search called a planted function: %+v, %v", res, err)
	}
	_, _, err = Init(ctx, adminURL)
	if err == nil || !strings.Contains(err.Error(), "REVOKE CREATE ON SCHEMA public FROM PUBLIC") {
		t.Fatalf("Init accepted a database where members may CREATE in public: %v", err)
	}
}

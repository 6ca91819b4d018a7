package pgstore

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestUpgradeConfinesLookups: a database at schema 3, 4 or 5, with members
// and their private pieces, upgraded by Init (what `ctxhook store init`
// runs), gets every member's own indexes and the confined functions: a
// member still finds its own and the team's pieces, and a pattern that
// would have failed on another member's private piece fails as it does
// on nothing; the member then holds no privilege on the tables, and
// ctxhook opens the store as the member and reads through the functions,
// whose events name their owner; no index of the events is led by
// anything but (owner, visibility) unless it holds team rows only.
func TestUpgradeConfinesLookups(t *testing.T) {
	needPG(t)
	for _, v := range []int{3, 4, 5} {
		t.Run(itoa(int64(v)), func(t *testing.T) { upgradeFrom(t, v) })
	}
}

func upgradeFrom(t *testing.T, version int) {
	ctx := context.Background()
	db, olduser := "ctxhook_v"+itoa(int64(version)), "olduser"+itoa(int64(version))
	super, err := pgx.Connect(ctx, cluster.SuperURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer super.Close(ctx)
	for _, sql := range []string{`CREATE DATABASE ` + db + ` OWNER ctxadmin`, `CREATE ROLE ` + olduser + ` LOGIN PASSWORD '` + adminPassword + `'`} {
		if _, err := super.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	url := cluster.URL("ctxadmin", adminPassword, db)
	admin, err := connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	must := func(sql string, args ...any) {
		t.Helper()
		if _, err := admin.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	must(schemaTable)
	must(`GRANT ctxhook_users TO ` + olduser)
	for v := 0; v < version; v++ {
		must(migrations[v])
		must(`INSERT INTO ctxhook_schema(version) VALUES($1::int)`, v+1)
	}
	// Rows as the members wrote them: the administrator is not bound by
	// the policies, so it can stand in for both.
	for i, w := range []struct{ owner, vis, text string }{
		{olduser, "private", "olduser own ledger QZ-7781"},
		{"ctxadmin", "private", "the admin's private escrow phrase vhkq-secret-3141"},
		{"ctxadmin", "team", "a team ledger QZ-2718"},
	} {
		must(`INSERT INTO ctxhook_events(id, owner, machine, local_id, visibility, ts_ms, session, harness, hook_event, category)
			VALUES($1::bigint, $2::name, 'm', $1::bigint, $3::text, 1, 's', 'h', 'e', 'mcp')`, int64(i+1), w.owner, w.vis)
		must(`INSERT INTO ctxhook_docs(event_id, seq, owner, visibility, body_off, doc) VALUES($1::bigint, 0, $2::name, $3::text, 0, $4::text)`,
			int64(i+1), w.owner, w.vis, w.text)
	}
	if from, to, err := Init(ctx, url); err != nil || from != version || to != SchemaVersion {
		t.Fatalf("Init from schema %d: %d -> %d, %v", version, from, to, err)
	}
	var n int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE tablename = 'ctxhook_docs'
		AND indexdef LIKE '%owner = ''' || $1::text || '''::name%'`, olduser).Scan(&n); err != nil || n != 2 {
		t.Fatalf("olduser's indexes after the upgrade: %d, %v", n, err)
	}
	oldURL := cluster.URL(olduser, adminPassword, db)
	old, err := pgx.Connect(ctx, oldURL)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close(ctx)
	if got := eventIDs(t, old, `SELECT event_id FROM ctxhook_search.substrings('%QZ-%') ORDER BY 1`); !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("olduser's substrings after the upgrade: %v, want [1 3]", got)
	}
	if got := eventIDs(t, old, `SELECT event_id FROM ctxhook_search.words('ledger') ORDER BY 1`); !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("olduser's words after the upgrade: %v, want [1 3]", got)
	}
	probe := func(pat string) string {
		_, err := old.Exec(ctx, `SELECT * FROM ctxhook_search.substrings($1::text)`, pat)
		if err == nil {
			return "no error"
		}
		return err.Error()
	}
	if a, b := probe(`%vhkq-secret%\`), probe(`%zzzz-zzzzzz%\`); a != b {
		t.Errorf("after the upgrade a trailing escape still tells a private match: %q against %q", a, b)
	}
	if _, err := old.Exec(ctx, `SELECT 1 FROM ctxhook_docs LIMIT 1`); err == nil {
		t.Errorf("after the upgrade a member still reads the pieces table")
	}
	st := openAs(t, oldURL, Options{Machine: "m"})
	defer st.Close()
	if e, err := st.Event(1); err != nil || e.ID != 1 {
		t.Errorf("after the upgrade the member's own event: %+v %v", e, err)
	}
	if _, err := st.Event(2); err == nil {
		t.Errorf("after the upgrade the member reads the administrator's private event")
	}
	var owner string
	if err := old.QueryRow(ctx, `SELECT owner FROM ctxhook_search.events(ARRAY[3::bigint], 10)`).Scan(&owner); err != nil || owner != "ctxadmin" {
		t.Errorf("after the upgrade the team event's owner: %q, %v", owner, err)
	}
	if got := eventIDs(t, admin, `SELECT count(*) FROM pg_indexes WHERE tablename = 'ctxhook_events'
		AND indexdef NOT LIKE '%(owner, visibility%' AND indexdef NOT LIKE '%WHERE (visibility = ''team''::text)%'
		AND indexdef NOT LIKE '%(visibility = ''team''::text) AND%' AND indexname <> 'ctxhook_events_owner_machine_local_id_key'`); got[0] != 0 {
		t.Errorf("after the upgrade %d indexes of the events are led by something else", got[0])
	}
}

package pgstore

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/storetest"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/jackc/pgx/v5"
)

// TestSearchFunctionsConfined: a member calling the search functions
// directly, with crafted queries and patterns, after SET ROLE, with a
// temporary table shadowing ctxhook_docs and its own search_path, gets
// the ids of its own and the team's pieces only; it cannot become the
// functions' owner, replace them or create beside them; and the owner
// can do nothing but read the pieces.
func TestSearchFunctionsConfined(t *testing.T) {
	needPG(t)
	ctx := context.Background()
	_, aliceURL := newUser(t)
	_, bobURL := newUser(t)
	a := openAs(t, aliceURL, Options{Machine: "laptop", Team: map[string]bool{"jira": true}})
	defer a.Close()
	defer a.Purge(store.PurgeFilter{All: true}, false, false)
	ids, err := a.Apply([]abi.Event{
		storetest.Ev("alice-f", "vault", "mcp__vault__read", "private payroll note WQ-3141"),
		storetest.Ev("alice-f", "jira", "mcp__jira__get_issue", "shared payroll ticket WQ-2718"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	private, team := ids[0], ids[1]
	bob, err := pgx.Connect(ctx, bobURL)
	if err != nil {
		t.Fatal(err)
	}
	defer bob.Close(ctx)
	lookups := []struct {
		sql      string
		findTeam bool
	}{
		{`SELECT event_id FROM ctxhook_search.words('payroll')`, true},
		{`SELECT event_id FROM ctxhook_search.words('payroll | note & wq')`, false},
		{`SELECT event_id FROM ctxhook_search.words($$payroll') OR true OR ('$$)`, false},
		{`SELECT event_id FROM ctxhook_search.substrings('%')`, true},
		{`SELECT event_id FROM ctxhook_search.substrings('%payroll%')`, true},
		{`SELECT event_id FROM ctxhook_search.substrings($$%' OR true OR '$$)`, false},
	}
	check := func(when string) {
		t.Helper()
		for _, l := range lookups {
			got := eventIDs(t, bob, l.sql)
			if slices.Contains(got, private) {
				t.Errorf("%s, %s returned alice's private event %d", when, l.sql, private)
			}
			if l.findTeam && !slices.Contains(got, team) {
				t.Errorf("%s, %s misses the team event %d: %v", when, l.sql, team, got)
			}
		}
	}
	check("as bob")
	errorsAlike(t, bob)
	for _, sql := range []string{
		`CREATE TEMP TABLE ctxhook_docs(event_id bigint, seq int, owner name, visibility text, doc text, words tsvector)`,
		`INSERT INTO pg_temp.ctxhook_docs VALUES (` + itoa(private) + `, 0, current_user, 'team', 'payroll', 'payroll')`,
		`SET search_path = pg_temp, public, pg_catalog`,
		`SET ROLE ctxhook_users`,
	} {
		if _, err := bob.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	check("with a shadowing table, bob's search_path and SET ROLE ctxhook_users")
	refusedToMember(t, bob)
	confinedOwner(t)
}

// errorsAlike: an error is an output too. Patterns that fail when what
// precedes the fault matches (a trailing escape, after a wildcard, an
// underscore or an escaped escape) fail the same way on alice's private
// note as on text that no piece holds, and the word lookup's query
// syntax fails on neither.
func errorsAlike(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	for _, form := range []string{`%%%s%%\`, `%%%s\`, `%%%s_\`, `%%%s%%\\\`, `%s`} {
		answer := func(fn, arg string) string {
			_, err := conn.Exec(context.Background(), `SELECT * FROM ctxhook_search.`+fn+`($1::text)`, arg)
			return fmt.Sprint(err)
		}
		for _, fn := range []string{"substrings", "words"} {
			priv, none := fmt.Sprintf(form, "private payroll note WQ-3"), fmt.Sprintf(form, "private payroll note ZZ-9")
			if a, b := answer(fn, priv), answer(fn, none); a != b {
				t.Errorf("%s(%q) on alice's private note answers %s; on nothing, %s", fn, priv, a, b)
			}
		}
	}
}

// refusedToMember: a member cannot act as the functions' owner, change
// them or add to their schema.
func refusedToMember(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	for _, sql := range []string{
		`SET ROLE ctxhook_search`,
		`CREATE OR REPLACE FUNCTION ctxhook_search.substrings(pat text) RETURNS TABLE(event_id bigint, seq int)
			LANGUAGE sql AS $$ SELECT event_id, seq FROM public.ctxhook_docs $$`,
		`CREATE FUNCTION ctxhook_search.own(x text) RETURNS int LANGUAGE sql AS $$ SELECT 1 $$`,
		`ALTER FUNCTION ctxhook_search.words(text) SECURITY INVOKER`,
		`DROP POLICY search_lookup ON ctxhook_docs`,
		`GRANT ctxhook_search TO CURRENT_USER`,
	} {
		if _, err := conn.Exec(ctx, sql); err == nil {
			t.Errorf("as a member, %q succeeded", strings.Fields(sql)[0]+" "+strings.Fields(sql)[1])
		}
	}
}

// confinedOwner: the functions' owner is no superuser, cannot log in or
// bypass row-level security, create roles or databases, update, truncate
// or create in public; it reads, inserts and deletes rows, which its own
// policies confine to the login role for writes.
func confinedOwner(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var owners []string
	rows, _ := conn.Query(ctx, `SELECT DISTINCT proowner::regrole::text FROM pg_proc WHERE pronamespace = 'ctxhook_search'::regnamespace`)
	if owners, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil || !slices.Equal(owners, []string{"ctxhook_search"}) {
		t.Fatalf("the search functions' owners: %v %v", owners, err)
	}
	var bad bool
	err = conn.QueryRow(ctx, `SELECT rolsuper OR rolcanlogin OR rolbypassrls OR rolcreaterole OR rolcreatedb
		OR has_table_privilege('ctxhook_search', 'ctxhook_events', 'UPDATE, TRUNCATE, REFERENCES, TRIGGER')
		OR has_table_privilege('ctxhook_search', 'ctxhook_docs', 'UPDATE, TRUNCATE, REFERENCES, TRIGGER')
		OR has_schema_privilege('ctxhook_search', 'public', 'CREATE')
		FROM pg_roles WHERE rolname = 'ctxhook_search'`).Scan(&bad)
	if err != nil || bad {
		t.Errorf("ctxhook_search may do more than read and write rows: %v %v", bad, err)
	}
}

func eventIDs(t *testing.T, conn *pgx.Conn, sql string) []int64 {
	t.Helper()
	rows, err := conn.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return ids
}

// TestSearchLookupUsesIndex: as ctxhook_search, the role the functions
// run as (a member may not read the table at all), the lookups the
// functions make of a member's private pieces are scans of that
// member's own indexes.
func TestSearchLookupUsesIndex(t *testing.T) {
	needPG(t)
	ctx := context.Background()
	bob, _ := newUser(t)
	sum := md5.Sum([]byte(bob))
	own := hex.EncodeToString(sum[:])[:16]
	plan := func(url, role, q string) string {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		out := ""
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
				return err
			}
			if role != "" {
				if _, err := tx.Exec(ctx, `SET LOCAL ROLE `+role); err != nil {
					return err
				}
			}
			rows, _ := tx.Query(ctx, `EXPLAIN `+q)
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			out = strings.Join(lines, "\n")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, c := range []struct{ cond, index string }{
		{`words @@ plainto_tsquery('english'::regconfig, 'payroll')`, "ctxhook_docs_words_" + own},
		{`doc ~~* '%payroll%'`, "ctxhook_docs_trgm_" + own},
	} {
		q := `SELECT event_id FROM public.ctxhook_docs WHERE owner = '` + bob + `'::name AND visibility = 'private' AND ` + c.cond
		if p := plan(adminURL, "ctxhook_search", q); !strings.Contains(p, c.index) {
			t.Errorf("as ctxhook_search the lookup of %s's pieces does not use %s:\n%s", bob, c.index, p)
		}
	}
}

// TestCommonSubstringNewestVisible: a substring too common for the
// trigram index (more than 3,000 matches a member may see) is read
// newest first, with the same filter: another member gets the newest
// 1,000 of the team's, none of the private ones written after them; the
// owner gets those first.
func TestCommonSubstringNewestVisible(t *testing.T) {
	needPG(t)
	_, aliceURL := newUser(t)
	_, bobURL := newUser(t)
	a := openAs(t, aliceURL, Options{Machine: "laptop", Team: map[string]bool{"jira": true}})
	defer a.Close()
	defer a.Purge(store.PurgeFilter{All: true}, false, false)
	var evs []abi.Event
	for i := 0; i < 3001; i++ {
		evs = append(evs, storetest.Ev("alice-c", "jira", "mcp__jira__get_issue", "shared zetaqx"+itoa(int64(i))))
	}
	for i := 0; i < 500; i++ {
		evs = append(evs, storetest.Ev("alice-c", "vault", "mcp__vault__read", "private zetaqx"+itoa(int64(i))))
	}
	ids, err := a.Apply(evs, nil)
	if err != nil {
		t.Fatal(err)
	}
	private := map[int64]bool{}
	for _, id := range ids[3001:] {
		private[id] = true
	}
	const sql = `SELECT event_id FROM ctxhook_search.substrings('%zetaqx%')`
	for _, c := range []struct {
		url         string
		wantPrivate int
	}{{bobURL, 0}, {aliceURL, 500}} {
		conn, err := pgx.Connect(context.Background(), c.url)
		if err != nil {
			t.Fatal(err)
		}
		got := eventIDs(t, conn, sql)
		conn.Close(context.Background())
		n := 0
		for _, id := range got {
			if private[id] {
				n++
			}
		}
		if len(got) != 1000 || n != c.wantPrivate || !slices.IsSortedFunc(got, func(x, y int64) int { return int(y - x) }) {
			t.Errorf("%d ids (%d private, want %d), newest first: %v", len(got), n, c.wantPrivate, slices.IsSortedFunc(got, func(x, y int64) int { return int(y - x) }))
		}
	}
}

package team

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestTeam: six homes (three users, two machines each) each run three
// real hooks: a private event (vault), a team event (tickets) and a
// tickets call whose result carries a relay token. The daemons ship them.
// Then each user finds their own private events and every team event,
// never another's private one, through `ctxhook store search` (with
// forged --session and --server filters too) and raw SQL as their role;
// and no relay token is in any table of the database.
func TestTeam(t *testing.T) {
	needPG(t)
	hs := homes(t)
	tokens := map[*home]string{}
	hookAll(t, hs, func(h *home) [][]byte {
		tok := fmt.Sprintf("tok%s%sQ7vX9kLm2Pz8Rw4Ty6Ub", h.user, h.machine)
		tokens[h] = tok
		return [][]byte{
			h.payload(t, "vault", "private note priv"+h.user+h.machine+" about the payroll"),
			h.payload(t, "tickets", "Ticket update team"+h.user+h.machine+": the build is green"),
			h.payload(t, "tickets", `{"session_token":"`+tok+`","ok":true}`),
		}
	})
	const mine = `SELECT count(*) FROM ctxhook_events WHERE body_text LIKE 'private note priv%'
		OR body_text LIKE 'Ticket update team%' OR body_text LIKE '%session_token%'`
	if n := waitFor(t, 90*time.Second, 18, mine); n != 18 {
		t.Fatalf("%d events in the database after 90 s, want 18 (3 from each of 6 homes)", n)
	}
	for _, h := range hs {
		checkSearch(t, h, hs)
	}
	for _, u := range users {
		rawAsUser(t, u)
	}
	noTokenInDatabase(t, tokens)
}

// checkSearch: what one home's user finds in the shared store.
func checkSearch(t *testing.T, h *home, hs []*home) {
	for _, o := range hs {
		out, errs, err := h.ctxhook(t, "store", "search", "--limit", "50", "priv"+o.user+o.machine)
		if err != nil {
			t.Fatalf("%s search: %v %s", h.user, err, errs)
		}
		found := strings.Contains(out, "priv"+o.user+o.machine)
		if found != (o.user == h.user) {
			t.Errorf("%s/%s searching %s/%s's private event: found %v\n%s", h.user, h.machine, o.user, o.machine, found, out)
		}
		out, _, _ = h.ctxhook(t, "store", "search", "team"+o.user+o.machine)
		if !strings.Contains(out, "team"+o.user+o.machine) {
			t.Errorf("%s/%s does not find %s/%s's team event\n%s", h.user, h.machine, o.user, o.machine, out)
		}
		if o.user == h.user {
			continue
		}
		// Forged filters: the other's session and private server.
		out, _, _ = h.ctxhook(t, "store", "search", "--session", o.session(), "--server", "vault", "payroll")
		if strings.Contains(out, "priv"+o.user) {
			t.Errorf("%s with forged filters finds %s's private event\n%s", h.user, o.user, out)
		}
	}
}

// rawAsUser connects as the user's own role and asks for others'
// private rows outright: every table is refused (a member holds no
// privilege on any), and the functions return the user's own pieces.
func rawAsUser(t *testing.T, user string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, cluster.URL(user, password(user), "ctxhook"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int64
	for _, sql := range []string{
		`SELECT count(*) FROM ctxhook_events WHERE owner <> current_user AND visibility = 'private'`,
		`SELECT count(*) FROM ctxhook_docs WHERE doc LIKE '%payroll%'`,
	} {
		var pe *pgconn.PgError
		if err := conn.QueryRow(ctx, sql).Scan(&n); !errors.As(err, &pe) || pe.Code != "42501" {
			t.Errorf("raw SQL as %s: %s: %d rows, %v; want 42501", user, sql, n, err)
		}
	}
	err = conn.QueryRow(ctx, `SELECT count(*) FROM ctxhook_search.substrings('%payroll%') s
		JOIN ctxhook_search.events(ARRAY(SELECT event_id FROM ctxhook_search.substrings('%payroll%')), 0) e ON e.id = s.event_id
		WHERE e.mine`).Scan(&n)
	if err != nil || n != 2 {
		t.Errorf("as %s the functions find %d of its own pieces, want 2 (%v)", user, n, err)
	}
}

// noTokenInDatabase reads every column of every table of the database as
// text, as its administrator, and looks for each relay token; each token
// must be in its home's local session state (else the check proves
// nothing).
func noTokenInDatabase(t *testing.T, tokens map[*home]string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name)
		FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		rows.Scan(&name)
		tables = append(tables, name)
	}
	rows.Close()
	var all strings.Builder
	for _, tbl := range tables {
		var text string
		if err := conn.QueryRow(ctx, `SELECT coalesce(string_agg(t::text, E'\n'), '') FROM `+tbl+` t`).Scan(&text); err != nil {
			t.Fatalf("%s: %v", tbl, err)
		}
		all.WriteString(text)
	}
	if len(tables) < 3 || !strings.Contains(all.String(), "teamalicelaptop") {
		t.Fatalf("the dump of %v holds no events: the check would prove nothing", tables)
	}
	for h, tok := range tokens {
		if strings.Contains(all.String(), tok) {
			t.Errorf("%s/%s's relay token is in the database", h.user, h.machine)
		}
		if !inFiles(h.dir+"/state", tok) {
			t.Errorf("%s/%s's relay token is in no local state file: it was never captured", h.user, h.machine)
		}
	}
}

func inFiles(dir, s string) bool {
	found := false
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && !strings.HasSuffix(p, ".db") {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), s) {
				found = true
			}
		}
		return nil
	})
	return found
}

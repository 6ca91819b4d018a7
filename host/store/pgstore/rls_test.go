package pgstore

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/storetest"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/jackc/pgx/v5"
)

// TestPrivateStaysPrivate: one teammate's private events are invisible
// to another through every read, with forged filters, and with raw SQL
// as the other's own role; team-shared events are found by both.
func TestPrivateStaysPrivate(t *testing.T) {
	needPG(t)
	alice, aliceURL := newUser(t)
	_, bobURL := newUser(t)
	a := openAs(t, aliceURL, Options{Machine: "laptop", Team: map[string]bool{"jira": true}})
	defer a.Close()
	// The team event would show in the other tests' counts: gone after.
	defer a.Purge(store.PurgeFilter{All: true}, false, false)
	ids, err := a.Apply([]abi.Event{
		storetest.Ev("alice-s1", "vault", "mcp__vault__read", "private note ZK-4411 about payroll"),
		storetest.Ev("alice-s1", "jira", "mcp__jira__get_issue", "Ticket ZK-5000 shared with the team"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	private, team := ids[0], ids[1]
	b := openAs(t, bobURL, Options{Machine: "devbox"})
	defer b.Close()
	for _, o := range []store.SearchOptions{{}, {Session: "alice-s1"}, {Server: "vault"}, {Session: "alice-s1", Server: "vault", Category: "mcp"}} {
		r, err := b.SearchResult(store.ParseQuery("ZK-4411 payroll"), o)
		if err != nil || len(r.Hits) != 0 {
			t.Errorf("bob's search %+v found alice's private event: %+v %v", o, r.Hits, err)
		}
	}
	if r, err := b.SearchResult(store.ParseQuery("ZK-5000"), store.SearchOptions{}); err != nil || len(r.Hits) != 1 || r.Hits[0].Event.ID != team {
		t.Errorf("bob does not find the team event: %+v %v", r.Hits, err)
	}
	if _, err := b.Event(private); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob's get_event of %d: %v", private, err)
	}
	if body, err := b.ReadBody(private, store.FieldText, 0, 100); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob's read of %d: %q %v", private, body, err)
	}
	if st, _ := b.Stats("alice-s1"); st.Events != 1 {
		t.Errorf("bob's stats of alice's session count %d events, want the 1 shared", st.Events)
	}
	if p, err := b.Purge(store.PurgeFilter{All: true}, false, false); err != nil || p.Events != 0 {
		t.Errorf("bob's purge all: %+v %v", p, err)
	}
	rawAs(t, bobURL, alice, private, team)
	if e, err := a.Event(private); err != nil || e.ID != private {
		t.Errorf("alice lost her own event: %v", err)
	}
}

// rawAs runs SQL as a teammate's own role against another's private
// event: every read and write of a table is refused (a member holds no
// privilege on any), as is any way around the functions.
func rawAs(t *testing.T, url, victim string, private, team int64) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	refused := []string{
		`SELECT count(*) FROM ctxhook_events WHERE owner = '` + victim + `' AND visibility = 'private'`,
		`SELECT count(*) FROM ctxhook_docs WHERE doc LIKE '%payroll%'`,
		`DELETE FROM ctxhook_events WHERE id = ` + itoa(private),
		`UPDATE ctxhook_events SET visibility = 'team'`,
		`INSERT INTO ctxhook_events(owner, machine, ts_ms, session, harness, hook_event, category)
			VALUES('` + victim + `', 'x', 1, 's', 'h', 'e', 'mcp')`,
		`INSERT INTO ctxhook_docs(event_id, seq, body_off, doc) VALUES(` + itoa(private) + `, 99, 0, 'planted')`,
		`INSERT INTO ctxhook_docs(event_id, seq, visibility, body_off, doc) VALUES(` + itoa(team) + `, 99, 'team', 0, 'planted')`,
		`ALTER TABLE ctxhook_events DISABLE ROW LEVEL SECURITY`,
		`SET ROLE ` + victim,
		`SET ROLE ctxadmin`,
		`DROP POLICY read_own_or_team ON ctxhook_events`,
		`SELECT ctxhook_search.cursor('x') FROM ctxhook_events`,
	}
	for _, sql := range refused {
		if _, err := conn.Exec(ctx, sql); err == nil {
			t.Errorf("as a teammate, %q succeeded", strings.Fields(sql)[0]+" "+strings.Fields(sql)[1])
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

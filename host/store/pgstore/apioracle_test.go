package pgstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/storetest"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/jackc/pgx/v5"
)

// TestAPINoCountOracle: the API functions' own work, which a member reads
// back in its transaction from pg_stat_get_xact_* on the events and
// pieces tables and their shared indexes, must not depend on another
// member's private rows. Each probe on bob's private rows is paired with
// a decoy that touches nothing of his:
//   - neighbours around alice's own event, written (by put) in a session
//     she guesses: the session btree is read for every owner's rows;
//   - pieces of bob's private event, seq 0..63: the primary key fetches
//     exactly his pieces, so the count says how large his response is;
//   - events, read_body and neighbours of bob's private id against an id
//     that was never given.
func TestAPINoCountOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("11,000 events (-short)")
	}
	needPG(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	_, aliceURL := newUser(t)
	_, bobURL := newUser(t)
	bs := openAs(t, bobURL, Options{Machine: "boblaptop", Team: map[string]bool{"jira": true}, Timeout: time.Minute})
	t.Cleanup(func() { bs.Purge(store.PurgeFilter{All: true}, false, false); bs.Close() })
	var evs []abi.Event
	for i := 0; i < 3000; i++ {
		evs = append(evs, storetest.Ev("bob-secret-session", "bobvault", "mcp__bobvault__get", filler(rng, 30)))
	}
	for i := 0; i < 8000; i++ {
		evs = append(evs, storetest.Ev(fmt.Sprintf("s%d", i/20), "jira", "mcp__jira__get", filler(rng, 30)))
	}
	evs = append(evs, storetest.Ev("bob-secret-session", "bobvault", "mcp__bobvault__get", filler(rng, 60000)))
	var ids []int64
	for len(evs) > 0 {
		n := min(len(evs), 500)
		got, err := bs.Apply(evs[:n], nil)
		if err != nil {
			t.Fatal(err)
		}
		ids, evs = append(ids, got...), evs[n:]
	}
	big, small := ids[len(ids)-1], ids[0]
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, `VACUUM ANALYZE ctxhook_events, ctxhook_docs`); err != nil {
		t.Fatal(err)
	}
	admin.Close(ctx)
	alice, err := pgx.Connect(ctx, aliceURL)
	if err != nil {
		t.Fatal(err)
	}
	defer alice.Close(ctx)
	defer alice.Exec(ctx, `SELECT * FROM ctxhook_search.purge('', '', 0, false)`)
	const put = `SELECT * FROM ctxhook_search.put('alaptop', $1::bigint, 'private', 1, $2::text, 'h', 'PostToolUse', 'mcp', 't',
		'notes', '', '', '', '', 'x', 1, false, 0, '', 0, 0, ARRAY[0::bigint], ARRAY['x'])`
	var guess, decoy int64
	if err := alice.QueryRow(ctx, put, 1, "bob-secret-session").Scan(&guess); err != nil {
		t.Fatal(err)
	}
	if err := alice.QueryRow(ctx, put, 2, "bob-secret-sessiox").Scan(&decoy); err != nil {
		t.Fatal(err)
	}
	never := big + 1_000_000
	seqs := []int32{}
	for i := int32(0); i < 64; i++ {
		seqs = append(seqs, i)
	}
	for _, c := range []struct {
		name, sql    string
		match, decoy []any
	}{
		{"neighbours in a guessed session", `SELECT id FROM ctxhook_search.neighbours($1, 5, true, 10)`, []any{guess}, []any{decoy}},
		{"pieces of a private event", `SELECT * FROM ctxhook_search.pieces(array_fill($1::bigint, ARRAY[64]), $2::int[])`,
			[]any{big, seqs}, []any{never, seqs}},
		{"events of a private id", `SELECT id FROM ctxhook_search.events(ARRAY[$1::bigint], 10)`, []any{small}, []any{never}},
		{"read_body of a private id", `SELECT * FROM ctxhook_search.read_body($1, 'body_text', 1, 10)`, []any{small}, []any{never}},
		{"neighbours of a private id", `SELECT id FROM ctxhook_search.neighbours($1, 5, true, 10)`, []any{small}, []any{never}},
	} {
		m, d := xactProbe(t, alice, c.sql, c.match...), xactProbe(t, alice, c.sql, c.decoy...)
		if m != d {
			t.Errorf("%s: on bob's private rows %s; the decoy %s", c.name, m, d)
		}
	}
}

// xactProbe runs sql in a transaction and says what it returned and which
// of this backend's unpublished counters of ctxhook's tables and indexes
// it moved.
func xactProbe(t *testing.T, conn *pgx.Conn, sql string, args ...any) string {
	ctx := context.Background()
	const q = `SELECT c.relname::text || ' ' || k, v FROM pg_class c,
		LATERAL (VALUES ('scans', pg_stat_get_xact_numscans(c.oid)), ('returned', pg_stat_get_xact_tuples_returned(c.oid)),
			('fetched', pg_stat_get_xact_tuples_fetched(c.oid))) AS x(k, v)
		WHERE c.relname LIKE 'ctxhook%' AND c.relnamespace = 'public'::regnamespace`
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	read := func() map[string]int64 {
		rows, err := tx.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int64{}
		for rows.Next() {
			var k string
			var v int64
			if err := rows.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			m[k] = v
		}
		return m
	}
	before := read()
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		return "error " + err.Error()
	}
	var moved []string
	for k, v := range read() {
		if v != before[k] {
			moved = append(moved, fmt.Sprintf("%s +%d", k, v-before[k]))
		}
	}
	slices.Sort(moved)
	return fmt.Sprintf("%d rows; %s", n, strings.Join(moved, ", "))
}

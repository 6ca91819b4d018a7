package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/storetest"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestNoRawSQLOracle: a member with raw SQL asks the planner and the
// executor, not the search functions, about another member's private
// pieces. Row-level security hides the rows, but a leakproof operator
// (texteq, text_lt, starts_with) is estimated from pg_statistic, which
// ANALYZE draws from every row, and may be an index condition on the
// other member's own partial indexes, whose matches EXPLAIN ANALYZE
// counts before the policy removes them. Each probe on bob's private text
// is paired with a decoy of the same shape: the answers must be equal,
// and since schema 5 both are a refusal (42501): a member holds no
// privilege on the tables, so it can neither EXPLAIN nor LOCK them.
func TestNoRawSQLOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("12,000 pieces (-short)")
	}
	needPG(t)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 41))
	alice, aliceURL := newUser(t)
	bob, bobURL := newUser(t)
	_ = alice
	note := "note to self: the escrow passphrase is " + randText(rng, hexDigits, 24)
	key := randText(rng, hexDigits, 64)
	for _, w := range []struct {
		url     string
		private int
		secret  bool
	}{{aliceURL, 7000, false}, {bobURL, 5000, true}} {
		s := openAs(t, w.url, Options{Machine: "m", Team: map[string]bool{"jira": true}, Timeout: time.Minute})
		t.Cleanup(func() { s.Purge(store.PurgeFilter{All: true}, false, false); s.Close() })
		var evs []abi.Event
		for i := 0; i < w.private; i++ {
			evs = append(evs, storetest.Ev("raw", "vault", "mcp__vault__get", filler(rng, 20+rng.IntN(40))))
		}
		for i := 0; w.secret && i < 30; i++ { // the agent read the note again and again
			evs = append(evs, storetest.Ev("raw", "vault", "mcp__vault__get", note))
		}
		for i := 0; w.secret && i < 5; i++ {
			evs = append(evs, storetest.Ev("raw", "vault", "mcp__vault__get", filler(rng, 2000)+" signing key "+key+" "+filler(rng, 2000)))
		}
		for len(evs) > 0 {
			n := min(len(evs), 500)
			if _, err := s.Apply(evs[:n], nil); err != nil {
				t.Fatal(err)
			}
			evs = evs[n:]
		}
	}
	admin, err := pgx.Connect(context.Background(), adminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(context.Background(), `VACUUM ANALYZE ctxhook_events, ctxhook_docs`); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(context.Background(), aliceURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	prefix := "mcp__vault__get\nvault\n{\"q\":1}\n"
	decoyNote := note[:len(note)-24] + randText(rng, hexDigits, 24)
	for _, p := range []struct{ name, sql, match, decoy string }{
		{"estimate of a prefix", `EXPLAIN SELECT 1 FROM ctxhook_docs WHERE doc ^@ %s`, prefix + note[:len(note)-20], prefix + decoyNote[:len(note)-20]},
		{"estimate of a range", `EXPLAIN SELECT 1 FROM ctxhook_docs WHERE doc >= %[1]s AND doc <= %[1]s || 'z'`, prefix + note[:len(note)-20], prefix + decoyNote[:len(note)-20]},
		{"word on bob's trigram index", `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT 1 FROM ctxhook_docs
			WHERE owner = '` + bob + `' AND visibility = 'private' AND doc = %s`, key, randText(rng, hexDigits, 64)},
		{"count of bob's pieces", `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT 1 FROM ctxhook_docs
			WHERE owner = %s AND visibility = 'private' AND seq >= 0`, bob, "nobody"},
	} {
		am, ad := explained(t, conn, p.sql, p.match), explained(t, conn, p.sql, p.decoy)
		if am != ad {
			t.Errorf("%s: on bob's private text:\n%s\nthe decoy:\n%s", p.name, am, ad)
		}
		if !strings.HasPrefix(am, "error 42501 ") {
			t.Errorf("%s: a member's EXPLAIN of the pieces was not refused:\n%s", p.name, am)
		}
	}
	// A member may not take a lock that stops the others' searches and
	// shipping (LOCK TABLE needs only DELETE for every mode).
	for _, mode := range []string{"ACCESS EXCLUSIVE", "SHARE"} {
		_, err := conn.Exec(context.Background(), `BEGIN; LOCK TABLE ctxhook_docs IN `+mode+` MODE NOWAIT; ROLLBACK`)
		conn.Exec(context.Background(), `ROLLBACK`)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "42501" {
			t.Errorf("a member's LOCK TABLE ctxhook_docs IN %s MODE: %v, want 42501", mode, err)
		}
	}
}

var explainRows = regexp.MustCompile(`cost=[0-9.]+\.\.[0-9.]+ `)

// explained runs an EXPLAIN with s as a literal, with sequential scans
// off (as the search functions have them), and returns its text, or its
// error's code and message.
func explained(t *testing.T, conn *pgx.Conn, sql, s string) string {
	t.Helper()
	var out []string
	err := pgx.BeginFunc(context.Background(), conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(context.Background(), `SET LOCAL enable_seqscan = off`); err != nil {
			return err
		}
		rows, _ := tx.Query(context.Background(), fmt.Sprintf(sql, "'"+strings.ReplaceAll(s, "'", "''")+"'"), pgx.QueryExecModeSimpleProtocol)
		var line string
		_, err := pgx.ForEachRow(rows, []any{&line}, func() error {
			if !strings.HasPrefix(strings.TrimSpace(line), "JIT") && !strings.HasPrefix(strings.TrimSpace(line), "Functions:") &&
				!strings.HasPrefix(strings.TrimSpace(line), "Options:") {
				out = append(out, explainRows.ReplaceAllString(line, ""))
			}
			return nil
		})
		return err
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.ReplaceAll(fmt.Sprintf("error %s %s %s", pe.Code, pe.Message, pe.Detail), s, "<probe>")
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(strings.Join(out, "\n"), s, "<probe>")
}

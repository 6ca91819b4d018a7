package team

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxhook/ctxhook/internal/signtest"
)

// TestTeamNoOracle: alice probes bob's private note and signing key
// through her agent's `ctxhook mcp` search and `ctxhook store search`,
// with the shared store configured. Each query holding a piece of the
// secret is paired with a decoy of the same shape that nothing holds,
// plain and in forms that would end a LIKE pattern in an escape or break
// a query's syntax: the answers (errors, results, counts) are the same
// pair by pair, and through MCP the times of 1,000 pairs, interleaved in
// random order, show no direction (a sign test, as TestNoOracle in
// host/store/pgstore, which probes the functions with raw SQL).
func TestTeamNoOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 MCP searches and 200 CLI searches against a real PostgreSQL (-short)")
	}
	needPG(t)
	hs := homes(t)
	alice, bob := hs[0], hs[2]
	key := make([]byte, 32)
	rand.Read(key)
	secrets := []string{hex.EncodeToString(key[:12]), hex.EncodeToString(key)}
	fillStore(t, 12000)
	rng := mrand.New(mrand.NewPCG(uint64(time.Now().UnixNano()), 41))
	note := "note to self: the escrow passphrase is " + secrets[0] + "; signing key " + secrets[1]
	hookAll(t, []*home{alice, bob}, func(h *home) [][]byte {
		if h == alice {
			return [][]byte{h.payload(t, "vault", "oracle ledger of the nightly run")}
		}
		// Large tool outputs (random words, as logs compress poorly),
		// each with the secret inside.
		var out [][]byte
		for i := 0; i < 10; i++ {
			out = append(out, h.payload(t, "vault", randWords(rng, 6000)+" "+note+" "+randWords(rng, 6000)))
		}
		return out
	})
	if n := waitFor(t, 90*time.Second, 10, `SELECT count(*) FROM ctxhook_events WHERE body_text LIKE '%'||$1||'%'`, secrets[1]); n != 10 {
		t.Fatalf("bob's private event is not in the database after 90 s")
	}
	pair := func() (string, string) {
		for {
			s := secrets[rng.IntN(len(secrets))]
			n := 8 + rng.IntN(7)
			off := rng.IntN(len(s) - n + 1)
			b := []byte(s[off : off+n])
			for i := range b {
				b[i] = "0123456789abcdef"[rng.IntN(16)]
			}
			if d := string(b); !strings.Contains(secrets[1], d) {
				return s[off : off+n], d
			}
		}
	}
	forms := []string{"%s", `%s\`, `%s%%\`, `"%s`, "%s*", "-%s", `%s\\\`}
	s := alice.mcp(t, nil)
	answer := func(q, piece string) (string, time.Duration) {
		start := time.Now()
		text, res := s.call(t, "search", map[string]any{"query": q, "limit": 50})
		took := time.Since(start)
		return fmt.Sprintf("error=%v results=%d %s", res.IsError, len(hits(res)), scrubAnswer(text, q, piece)), took
	}
	var tm, td []time.Duration
	bad := 0
	for i := 0; i < 1000; i++ {
		m, d := pair()
		form := forms[i%len(forms)]
		qm, qd := fmt.Sprintf(form, m), fmt.Sprintf(form, d)
		var am, ad string
		var dm, dd time.Duration
		if rng.IntN(2) == 0 {
			am, dm = answer(qm, m)
			ad, dd = answer(qd, d)
		} else {
			ad, dd = answer(qd, d)
			am, dm = answer(qm, m)
		}
		tm, td = append(tm, dm), append(td, dd)
		if am != ad {
			if bad++; bad <= 5 {
				t.Errorf("mcp search %q, on bob's private text: %s\nthe decoy %q: %s", qm, am, qd, ad)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of 1000 MCP probe pairs told a match from a decoy", bad)
	}
	z, slower, n := signtest.Z(tm, td)
	t.Logf("mcp search: match slower in %d of %d pairs, z = %.2f", slower, n, z)
	if math.Abs(z) > 5 {
		t.Errorf("mcp search: time tells a match on bob's private text from a decoy: slower in %d of %d pairs (z = %.1f)", slower, n, z)
	}
	for i := 0; i < 100; i++ {
		m, d := pair()
		form := forms[i%len(forms)]
		qm, qd := fmt.Sprintf(form, m), fmt.Sprintf(form, d)
		om, em, errm := alice.ctxhook(t, "store", "search", "--limit", "50", qm)
		od, ed, errd := alice.ctxhook(t, "store", "search", "--limit", "50", qd)
		am := fmt.Sprintf("%v|%s|%s", errm, scrubAnswer(om, qm, m), scrubAnswer(em, qm, m))
		ad := fmt.Sprintf("%v|%s|%s", errd, scrubAnswer(od, qd, d), scrubAnswer(ed, qd, d))
		if am != ad {
			t.Errorf("ctxhook store search %q, on bob's private text: %s\nthe decoy %q: %s", qm, am, qd, ad)
		}
	}
}

// measured are an answer's own measures: its time, and its size in
// tokens, which the query's own text sways.
var measured = regexp.MustCompile(`[0-9]+(\.[0-9]+)? ms|~[0-9]+ tokens`)

// scrubAnswer is an answer without its query, the piece of text it
// searched for and its measures, which the prober knows in any case.
func scrubAnswer(text, q, piece string) string {
	text = strings.ReplaceAll(strings.ReplaceAll(text, q, "<q>"), piece, "<p>")
	return measured.ReplaceAllString(text, "<n>")
}

// randWords is n random words of letters that no hex string holds.
func randWords(rng *mrand.Rand, n int) string {
	out := make([]string, n)
	for i := range out {
		b := make([]byte, 3+rng.IntN(7))
		for j := range b {
			b[j] = "ghijklmnopqrstuvwxyz"[rng.IntN(20)]
		}
		out[i] = string(b)
	}
	return strings.Join(out, " ")
}

// fillStore writes n pieces of carol's, private and team, of letters no
// hex string holds, as the administrator, then ANALYZE: a store of the
// size where the planner reads the trigram index. They are deleted when
// the test ends.
func fillStore(t *testing.T, n int) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, sql := range []string{
		`INSERT INTO ctxhook_events(owner, machine, local_id, visibility, ts_ms, session, harness, hook_event, category)
			SELECT 'carol', 'oracle-filler', g, CASE WHEN g % 4 = 0 THEN 'team' ELSE 'private' END, 1, 's', 'h', 'e', 'mcp'
			FROM generate_series(1, ` + strconv.Itoa(n) + `) g`,
		`INSERT INTO ctxhook_docs(event_id, seq, owner, visibility, body_off, doc)
			SELECT id, 0, owner, visibility, 0, (SELECT string_agg(translate(md5((id * 50 + i)::text), '0123456789abcdef', 'ghijklmnopqrstuv'), ' ')
				FROM generate_series(1, 30) i)
			FROM ctxhook_events WHERE machine = 'oracle-filler'`,
		`ANALYZE ctxhook_events, ctxhook_docs`,
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, adminURL)
		if err == nil {
			conn.Exec(ctx, `DELETE FROM ctxhook_events WHERE machine = 'oracle-filler'`)
			conn.Close(ctx)
		}
	})
}

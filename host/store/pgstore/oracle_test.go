package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/storetest"
	"github.com/ctxhook/ctxhook/internal/signtest"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The oracle corpus keeps two alphabets apart: everything a probing
// member may read is written in fillerLetters, and the victim's secrets
// (and the decoys they are compared with) in hexDigits. A probe's
// trigrams are then in no piece the prober can read, so whatever it
// observes of a probe that matches the victim's private text and of one
// that matches nothing must be the same.
const (
	fillerLetters = "ghijklmnopqrstuvwxyz"
	hexDigits     = "0123456789abcdef"
	// oraclePairs is how many probe pairs each kind of probe makes.
	oraclePairs = 1000
	// timingZ is the sign test's bound: under no difference, |z| > 5
	// happens about once in two million runs, and a difference the
	// prober could use (the match slower in 60% of pairs) gives z > 6.
	timingZ = 5.0
)

// oracle is a store of more than 10,000 pieces after ANALYZE, and a
// member (alice) probing, with only her own login and raw SQL, another
// member's (bob's) private passphrase and signing key.
type oracle struct {
	conn    *pgx.Conn
	secrets []string
	rng     *rand.Rand
}

// TestNoOracle: a member who probes another member's private text
// through the search functions, with patterns that fail on a match
// (a trailing escape and other malformed forms), with the rows and the
// statistics views' counters a probe leaves, and with time, recovers
// nothing. Each probe that matches the private text is paired with a
// decoy of the same shape that matches nothing: errors and counts must
// be identical pair by pair, and the pairs' times, taken interleaved in
// random order, must show no direction (a sign test, robust to a noisy
// machine's outliers).
func TestNoOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("12,000 pieces and 16,000 probes (-short)")
	}
	needPG(t)
	o := newOracle(t)
	t.Run("errors", o.errorProbes)
	t.Run("counts", o.countProbes)
	t.Run("timing", o.timingProbes)
}

func newOracle(t *testing.T) *oracle {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 40))
	_, aliceURL := newUser(t)
	_, bobURL := newUser(t)
	o := &oracle{rng: rng, secrets: []string{randText(rng, hexDigits, 32), randText(rng, hexDigits, 64)}}
	note := "note to self: the escrow passphrase is " + o.secrets[0] + "; signing key " + o.secrets[1]
	team := map[string]bool{"jira": true}
	for _, w := range []struct {
		url                  string
		private, shared, big int
	}{{aliceURL, 3000, 1000, 0}, {bobURL, 5000, 1000, 5}} {
		s := openAs(t, w.url, Options{Machine: "m", Team: team, Timeout: time.Minute})
		t.Cleanup(func() { s.Purge(store.PurgeFilter{All: true}, false, false); s.Close() })
		var evs []abi.Event
		for i := 0; i < w.private+w.shared; i++ {
			server, tool := "vault", "mcp__vault__get"
			if i >= w.private {
				server, tool = "jira", "mcp__jira__get_issue"
			}
			evs = append(evs, storetest.Ev("oracle", server, tool, filler(rng, 20+rng.IntN(40))))
		}
		for i := 0; i < w.big; i++ {
			// A realistic large tool output with the secret inside.
			evs = append(evs, storetest.Ev("oracle", "vault", "mcp__vault__get", filler(rng, 8000)+" "+note+" "+filler(rng, 8000)))
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
	// Vacuumed too, so that no autovacuum run adds to the counters.
	if _, err := admin.Exec(context.Background(), `VACUUM ANALYZE ctxhook_events, ctxhook_docs`); err != nil {
		t.Fatal(err)
	}
	if o.conn, err = pgx.Connect(context.Background(), aliceURL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.conn.Close(context.Background()) })
	return o
}

// errorProbes: patterns that raise an error when what comes before the
// fault matches some piece, through substrings, and query syntax through
// words; a match and its decoy must get the same rows or the same error.
func (o *oracle) errorProbes(t *testing.T) {
	patterns := []string{`%%%s%%\`, `%%%s\`, `%s%%\`, `%%%s_\`, `%%%s%%\\\`, `%%%s\%%`, `%%%s%%`}
	queries := []string{`%s & !`, `%s:*`, `'%s' | '`, `!!%s <-> (`, `%s\`}
	bad := 0
	for i := 0; i < oraclePairs; i++ {
		m, d := o.pair()
		for _, p := range []struct{ fn, form string }{
			{"substrings", patterns[i%len(patterns)]}, {"words", queries[i%len(queries)]},
		} {
			sql := `SELECT count(*) FROM ctxhook_search.` + p.fn + `($1::text)`
			am, ad := o.answer(sql, fmt.Sprintf(p.form, m)), o.answer(sql, fmt.Sprintf(p.form, d))
			if am != ad {
				if bad++; bad <= 5 {
					t.Errorf("%s(%q), on bob's private text, answered %s; the decoy %q answered %s",
						p.fn, fmt.Sprintf(p.form, m), am, fmt.Sprintf(p.form, d), ad)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d error probe pairs told a match from a decoy", bad, 2*oraclePairs)
	}
}

// answer is what a probe shows: its row count, or its error in full.
func (o *oracle) answer(sql, arg string) string {
	var n int64
	err := o.conn.QueryRow(context.Background(), sql, arg).Scan(&n)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Sprintf("error %s %q %q %q", pe.Code, pe.Message, pe.Detail, pe.Where)
	}
	if err != nil {
		return "error " + err.Error()
	}
	return fmt.Sprintf("%d rows", n)
}

// countProbes: the rows a probe returns and every counter the
// statistics views keep of the pieces table, its TOAST table and its
// indexes (scans, tuples read and fetched, blocks) that the probe
// moves; a match and its decoy must move them alike. The probe's own
// counts are read in its transaction (pg_stat_get_xact_*), exactly: what
// other backends add to the shared totals at the same time is noise
// that tells the prober nothing about its probe.
func (o *oracle) countProbes(t *testing.T) {
	bad := 0
	for i := 0; i < oraclePairs; i++ {
		m, d := o.pair()
		wm, wd := o.word(t)
		for _, p := range [][3]string{{"substrings", "%" + m + "%", "%" + d + "%"}, {"words", wm, wd}} {
			got := [2]string{o.counted(t, p[0], p[1]), o.counted(t, p[0], p[2])}
			if got[0] != got[1] {
				if bad++; bad <= 5 {
					t.Errorf("%s(%q), on bob's private text: %s; the decoy %q: %s", p[0], p[1], got[0], p[2], got[1])
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d count probe pairs told a match from a decoy", bad, 2*oraclePairs)
	}
}

// xactCounters are this backend's counters of the pieces table, its
// TOAST table and every index of either not yet published, by name.
const xactCounters = `SELECT c.relname::text || ' ' || k, v FROM pg_class c,
	LATERAL (VALUES ('scans', pg_stat_get_xact_numscans(c.oid)), ('returned', pg_stat_get_xact_tuples_returned(c.oid)),
		('fetched', pg_stat_get_xact_tuples_fetched(c.oid)), ('blocks', pg_stat_get_xact_blocks_fetched(c.oid)),
		('hit', pg_stat_get_xact_blocks_hit(c.oid))) AS x(k, v)
	WHERE c.oid IN ('public.ctxhook_docs'::regclass, (SELECT reltoastrelid FROM pg_class WHERE oid = 'public.ctxhook_docs'::regclass))
		OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid IN ('public.ctxhook_docs'::regclass,
			(SELECT reltoastrelid FROM pg_class WHERE oid = 'public.ctxhook_docs'::regclass)))`

// counted runs one probe in a transaction and says what it returned and
// which counters it moved: inside a transaction the backend publishes
// nothing, so the counters read before and after differ by the probe.
func (o *oracle) counted(t *testing.T, fn, arg string) string {
	ctx := context.Background()
	var out string
	err := pgx.BeginFunc(ctx, o.conn, func(tx pgx.Tx) error {
		before, err := readCounters(tx)
		if err != nil {
			return err
		}
		var n int64
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM ctxhook_search.`+fn+`($1::text)`, arg).Scan(&n); err != nil {
			return err
		}
		after, err := readCounters(tx)
		var moved []string
		for k, v := range after {
			if v != before[k] {
				moved = append(moved, fmt.Sprintf("%s+%d", k, v-before[k]))
			}
		}
		slices.Sort(moved)
		out = fmt.Sprintf("%d rows, moved %v", n, moved)
		return err
	})
	if err != nil {
		t.Fatalf("%s(%q): %v", fn, arg, err)
	}
	return out
}

func readCounters(tx pgx.Tx) (map[string]int64, error) {
	rows, _ := tx.Query(context.Background(), xactCounters)
	out := map[string]int64{}
	var k string
	var v int64
	_, err := pgx.ForEachRow(rows, []any{&k, &v}, func() error { out[k] = v; return nil })
	return out, err
}

// timingProbes: for each function, oraclePairs pairs timed back to back
// in random order; the share of pairs where the match was the slower
// must be one half within timingZ standard deviations.
func (o *oracle) timingProbes(t *testing.T) {
	for _, fn := range []string{"substrings", "words"} {
		sql := `SELECT count(*) FROM ctxhook_search.` + fn + `($1::text)`
		probe := func() (string, string) {
			if fn == "words" {
				return o.word(t)
			}
			m, d := o.pair()
			return "%" + m + "%", "%" + d + "%"
		}
		for i := 0; i < 50; i++ { // warm the caches and the connection
			m, d := probe()
			o.timed(t, sql, m)
			o.timed(t, sql, d)
		}
		var tm, td []time.Duration
		for i := 0; i < oraclePairs; i++ {
			m, d := probe()
			if o.rng.IntN(2) == 0 {
				tm = append(tm, o.timed(t, sql, m))
				td = append(td, o.timed(t, sql, d))
			} else {
				td = append(td, o.timed(t, sql, d))
				tm = append(tm, o.timed(t, sql, m))
			}
		}
		z, slower, n := signtest.Z(tm, td)
		t.Logf("%s: match slower in %d of %d pairs, z = %.2f; medians: match %v, decoy %v", fn, slower, n, z, signtest.Median(tm), signtest.Median(td))
		if math.Abs(z) > timingZ {
			t.Errorf("%s: time tells a match on bob's private text from a decoy: the match was slower in %d of %d pairs (z = %.1f, bound %.0f); medians %v and %v",
				fn, slower, n, z, timingZ, signtest.Median(tm), signtest.Median(td))
		}
	}
}

func (o *oracle) timed(t *testing.T, sql, arg string) time.Duration {
	var n int64
	start := time.Now()
	if err := o.conn.QueryRow(context.Background(), sql, arg).Scan(&n); err != nil {
		t.Fatalf("%q: %v", arg, err)
	}
	return time.Since(start)
}

// pair is a piece of one of bob's secrets, 8 to 14 characters, and a
// decoy like it that no piece holds; both have no repeated trigram, so
// that they make the trigram index look up as many keys.
func (o *oracle) pair() (match, decoy string) {
	for {
		s := o.secrets[o.rng.IntN(len(o.secrets))]
		n := 8 + o.rng.IntN(7)
		off := o.rng.IntN(len(s) - n + 1)
		match = s[off : off+n]
		decoy = o.like(match)
		if distinctTrigrams(match) && distinctTrigrams(decoy) && !o.held(decoy) {
			return match, decoy
		}
	}
}

// word is one of bob's secrets whole (words to the word index) and a
// decoy like it that the text search parser cuts into as many lexemes.
func (o *oracle) word(t *testing.T) (match, decoy string) {
	for {
		match = o.secrets[o.rng.IntN(len(o.secrets))]
		if decoy = o.like(match); o.held(decoy) {
			continue
		}
		var same bool
		err := o.conn.QueryRow(context.Background(), `SELECT numnode(plainto_tsquery('english'::regconfig, $1::text))
			= numnode(plainto_tsquery('english'::regconfig, $2::text))`, match, decoy).Scan(&same)
		if err != nil {
			t.Fatal(err)
		}
		if same {
			return match, decoy
		}
	}
}

// like is a random string with s's shape: a digit for each digit, an e
// for each e (the parser reads 1e5 as a number), another hex letter for
// each other letter.
func (o *oracle) like(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
			b[i] = "0123456789"[o.rng.IntN(10)]
		case c != 'e':
			b[i] = "abcdf"[o.rng.IntN(5)]
		}
	}
	return string(b)
}

func (o *oracle) held(s string) bool {
	for _, x := range o.secrets {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

func distinctTrigrams(s string) bool {
	seen := map[string]bool{}
	for i := 0; i+3 <= len(s); i++ {
		if seen[s[i:i+3]] {
			return false
		}
		seen[s[i:i+3]] = true
	}
	return true
}

func randText(rng *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// filler is n words of 3 to 9 letters of fillerLetters.
func filler(rng *rand.Rand, n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = randText(rng, fillerLetters, 3+rng.IntN(7))
	}
	return strings.Join(words, " ")
}

package pgstore

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"unicode/utf8"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/jackc/pgx/v5"
)

// DocSize is how much of a body one searchable row holds. A tsvector is
// at most 1 MiB, and a 10 MiB response must still be searchable to its
// end, so a body is indexed in pieces, each overlapping the next by
// docOverlap bytes so a term across a cut is still found.
const DocSize = 128 << 10

const docOverlap = 256

// Visibilities.
const (
	Private = "private"
	Team    = "team"
)

// visibility is the visibility of an event of server.
func (s *Store) visibility(server string) string {
	if server != "" && s.opts.Team[server] {
		return Team
	}
	return Private
}

// Apply stores events written here directly (not shipped from a local
// store). Tallies are session state and stay on the machine: they are
// ignored.
func (s *Store) Apply(events []abi.Event, _ []abi.Effect) ([]int64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	var ids []int64
	err := pgx.BeginFunc(ctx, s.conn, func(tx pgx.Tx) error {
		for _, e := range events {
			local := directLocalID()
			id, _, err := s.insert(ctx, tx, e, &local)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: write: %w", err)
	}
	return ids, nil
}

// directLocalID is the local id of an event written directly: put
// refuses an event without one, and a random negative one is never a
// shipped event's (local ids count up from 1) nor, in practice, another
// direct event's.
func directLocalID() int64 {
	return -1 - rand.Int64N(math.MaxInt64)
}

// insertSQL stores one event and its searchable pieces in one statement
// (one round trip, or none of its own in a batch), through
// ctxhook_search.put, which makes the login role their owner. An event
// shipped before (same owner, machine and local id) is skipped with its
// pieces: the statement then returns no row.
const insertSQL = `SELECT * FROM ctxhook_search.put($1::text, $2::bigint, $3::text, $4::bigint, $5::text, $6::text,
	$7::text, $8::text, $9::text, $10::text, $11::text, $12::text, $13::text, $14::text, $15::text, $16::bigint,
	$17::bool, $18::bigint, $19::text, $20::bigint, $21::int, $22::bigint[], $23::text[])`

// insertArgs are insertSQL's arguments for one event. localID, when not
// nil, is the event's id in this machine's store, which makes shipping
// exactly once however often a batch is retried.
func (s *Store) insertArgs(e abi.Event, localID *int64) []any {
	f := func(s string) string { return capText(s, maxFieldBytes) }
	args, resp, text := capText(clean(e.Args), maxBodyBytes), capText(clean(e.Response), maxBodyBytes), capText(clean(e.Text), maxBodyBytes)
	truncated := e.Truncated || len(args) < len(clean(e.Args)) || len(resp) < len(clean(e.Response)) || len(text) < len(clean(e.Text))
	tool, server := f(e.Tool), f(e.Server)
	pre := clean(tool + "\n" + server + "\n" + args + "\n")
	body := resp
	if e.Text != "" {
		body = text
	}
	ps := pieces(body, DocSize)
	offs, docs := make([]int64, len(ps)), make([]string, len(ps))
	for i, p := range ps {
		offs[i], docs[i] = p.off, p.text
	}
	docs[0] = pre + docs[0]
	return []any{f(s.opts.Machine), localID, s.visibility(e.Server), e.TimeMS, f(e.Session), f(e.Harness), f(e.HookEvent),
		f(e.Category), tool, server, f(e.ToolUseID), f(e.Cwd), args, resp, text,
		int64(e.ResponseBytes), truncated, int64(e.Redactions), f(e.Key), int64(e.ContextBytes), len(pre), offs, docs}
}

// capText cuts s to at most n bytes on a character boundary: what put
// accepts (maxBodyBytes, maxFieldBytes), so that an event past them is
// shipped cut and marked rather than refused on every try.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// insert stores one event; inserted is false for one stored before.
func (s *Store) insert(ctx context.Context, tx pgx.Tx, e abi.Event, localID *int64) (id int64, inserted bool, err error) {
	err = tx.QueryRow(ctx, insertSQL, s.insertArgs(e, localID)...).Scan(&id)
	if err == pgx.ErrNoRows {
		return 0, false, nil
	}
	return id, err == nil, err
}

// searchBody is what is indexed of an event: its text when the plugin
// rendered one, else the response (as the SQLite store).
func searchBody(e abi.Event) string {
	if e.Text != "" {
		return e.Text
	}
	return e.Response
}

type piece struct {
	text string
	off  int64
}

// pieces cuts body into pieces of about size bytes on character
// boundaries, each reaching docOverlap bytes into the next. The empty
// body is one empty piece (the event's tool and arguments are still
// searched).
func pieces(body string, size int) []piece {
	out := []piece{}
	for off := 0; ; {
		end := min(off+size, len(body))
		for end < len(body) && !utf8.RuneStart(body[end]) {
			end++
		}
		reach := min(end+docOverlap, len(body))
		for reach < len(body) && !utf8.RuneStart(body[reach]) {
			reach++
		}
		out = append(out, piece{body[off:reach], int64(off)})
		if end >= len(body) {
			return out
		}
		off = end
	}
}

// clean drops what a PostgreSQL text cannot hold (NUL) and invalid UTF-8,
// which the SQLite store keeps but a text column refuses.
func clean(s string) string {
	if utf8.ValidString(s) && !containsNUL(s) {
		return s
	}
	b := []rune{}
	for _, r := range s {
		if r != 0 {
			b = append(b, r)
		}
	}
	return string(b)
}

func containsNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown"
	}
	return h
}

var (
	passwordInURL   = regexp.MustCompile(`(?i)(postgres(?:ql)?://[^:/@\s]*:)[^@\s]*@`)
	passwordInParam = regexp.MustCompile(`(?i)(password=)\S+`)
)

// scrub takes any password out of an error's text: a connection error
// must not carry the URL's secret into a log or the model's view.
func scrub(err error) error {
	if err == nil {
		return nil
	}
	text := passwordInURL.ReplaceAllString(err.Error(), "${1}[REDACTED]@")
	return fmt.Errorf("%s", passwordInParam.ReplaceAllString(text, "${1}[REDACTED]"))
}

// fields are the body fields of an event row.
var fields = map[store.Field]string{store.FieldResponse: "response", store.FieldText: "body_text"}

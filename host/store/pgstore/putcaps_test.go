package pgstore

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPutHoldsClientCaps: put, called with raw SQL by a member, refuses
// what ctxhook's client never sends, before it inserts anything: an
// event without a local id, a piece past maxPieceBytes, more pieces than
// the body needs, a body past maxBodyBytes, a session past maxFieldBytes.
// An event the client would send, one piece of DocSize bytes with its
// prefix, is stored.
func TestPutHoldsClientCaps(t *testing.T) {
	needPG(t)
	ctx := context.Background()
	_, url := newUser(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	defer conn.Exec(ctx, `SELECT * FROM ctxhook_search.purge('', '', 0, false)`)
	const put = `SELECT * FROM ctxhook_search.put('m', $1::bigint, 'private', 1, $2::text, 'h', 'e', 'mcp', 't', 's',
		'', '', 'a', $3::text, '', 0, false, 0, '', 0, $4::int, $5::bigint[], $6::text[])`
	body := strings.Repeat("x", DocSize)
	for _, c := range []struct {
		name    string
		local   any
		session string
		resp    string
		pre     int
		offs    []int64
		docs    []string
		want    string // "" when stored
	}{
		{"as the client sends it", int64(1), "s", body, 6, []int64{0}, []string{"t\ns\na\n" + body}, ""},
		{"no local id", nil, "s", "x", 0, []int64{0}, []string{"x"}, "needs its local id"},
		{"a piece past the cap", int64(2), "s", body + body, 0, []int64{0, DocSize}, []string{body + body, "x"}, "a piece is at most"},
		{"more pieces than the body", int64(3), "s", "x", 0, []int64{0, 0, 0}, []string{"x", "x", "x"}, "do not cut the body"},
		{"no piece", int64(4), "s", "x", 0, []int64{}, []string{}, "do not cut the body"},
		{"a prefix longer than its parts", int64(5), "s", "x", 1 << 20, []int64{0}, []string{"x"}, "do not cut the body"},
		{"a body past the cap", int64(6), "s", strings.Repeat("y", maxBodyBytes+1), 0, []int64{0}, []string{"y"}, "at most 134217728 bytes"},
		{"a session past the cap", int64(7), strings.Repeat("s", maxFieldBytes+1), "x", 0, []int64{0}, []string{"x"}, "at most 65536 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var id int64
			err := conn.QueryRow(ctx, put, c.local, c.session, c.resp, c.pre, c.offs, c.docs).Scan(&id)
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
	var n int64
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM ctxhook_search.own_events(0, 100)`).Scan(&n); err != nil || n != 1 {
		t.Errorf("own events after the refusals: %d, %v; want only the one sent as the client does", n, err)
	}
}

package main

import (
	"os"
	"sort"
	"strings"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/fts5"
)

// baseline is plain FTS5 with BM25 over the same stored texts, in a
// SQLite database of its own, through the same driver: each event one
// row (its arguments and its whole text), the default tokenizer, the
// query's terms all ANDed, else (no match) ORed, and FTS5's snippet().
type baseline struct{ conn *sqlite3.Conn }

// openBaseline opens the baseline an earlier run built at path, or
// returns nil when there is none.
func openBaseline(path string) (*baseline, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	conn, err := sqlite3.Open(path)
	if err != nil {
		return nil, err
	}
	b := &baseline{conn}
	if err := fts5.Register(conn); err != nil {
		return nil, b.fail(err)
	}
	st, _, err := conn.Prepare(`SELECT count(*) FROM docs`)
	if err != nil {
		b.close()
		return nil, nil // not built to the end: build it again
	}
	built := st.Step() && st.ColumnInt64(0) > 0
	st.Close()
	if !built {
		b.close()
		return nil, nil
	}
	return b, nil
}

func newBaseline(path string, ing *ingested) (*baseline, error) {
	conn, err := sqlite3.Open(path)
	if err != nil {
		return nil, err
	}
	b := &baseline{conn}
	if err := fts5.Register(conn); err != nil {
		return nil, b.fail(err)
	}
	if err := conn.Exec(`PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
		CREATE VIRTUAL TABLE docs USING fts5(args, body);
		CREATE VIRTUAL TABLE pieces USING fts5(body, doc UNINDEXED)`); err != nil {
		return nil, b.fail(err)
	}
	ins, _, err := conn.Prepare(`INSERT INTO docs(rowid, args, body) VALUES(?, ?, ?)`)
	if err != nil {
		return nil, b.fail(err)
	}
	defer ins.Close()
	piece, _, err := conn.Prepare(`INSERT INTO pieces(body, doc) VALUES(?, ?)`)
	if err != nil {
		return nil, b.fail(err)
	}
	defer piece.Close()
	docs := append([]doc(nil), ing.docs...)
	sort.Slice(docs, func(i, j int) bool { return docs[i].id < docs[j].id })
	if err := conn.Exec(`BEGIN`); err != nil {
		return nil, b.fail(err)
	}
	for _, d := range docs {
		ins.BindInt64(1, d.id)
		ins.BindText(2, d.args)
		ins.BindText(3, d.text)
		if err := ins.Exec(); err != nil {
			return nil, b.fail(err)
		}
		for _, p := range pieces(d.args + "\n" + d.text) {
			piece.BindText(1, p)
			piece.BindInt64(2, d.id)
			if err := piece.Exec(); err != nil {
				return nil, b.fail(err)
			}
		}
	}
	return b, b.fail(conn.Exec(`COMMIT`))
}

// fail closes the connection when err is not nil.
func (b *baseline) fail(err error) error {
	if err != nil {
		b.conn.Close()
	}
	return err
}

func (b *baseline) close() { b.conn.Close() }

// search is the baseline's answer to query: the top 10 by BM25.
func (b *baseline) search(query string) ([]result, error) {
	var terms []string
	for _, t := range store.ParseQuery(query).Terms {
		terms = append(terms, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
	}
	if len(terms) == 0 {
		return nil, nil
	}
	for _, op := range []string{" AND ", " OR "} {
		out, err := b.match(strings.Join(terms, op))
		if err != nil || len(out) > 0 {
			return out, err
		}
	}
	return nil, nil
}

// match ranks whole documents, then makes each snippet with snippet()
// from the best-matching 64 KiB piece of the document: snippet() over a
// multi-MiB log dump with thousands of matches took minutes.
func (b *baseline) match(expr string) ([]result, error) {
	st, _, err := b.conn.Prepare(`SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT 10`)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	st.BindText(1, expr)
	var out []result
	for st.Step() {
		out = append(out, result{id: st.ColumnInt64(0)})
	}
	if err := st.Err(); err != nil {
		return nil, err
	}
	sn, _, err := b.conn.Prepare(`SELECT snippet(pieces, 0, '', '', '…', 24) FROM pieces WHERE pieces MATCH ? AND doc = ? ORDER BY rank LIMIT 1`)
	if err != nil {
		return nil, err
	}
	defer sn.Close()
	for i := range out {
		sn.BindText(1, expr)
		sn.BindInt64(2, out[i].id)
		if sn.Step() {
			out[i].snippet = sn.ColumnText(0)
		}
		if err := sn.Reset(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pieces cuts s into pieces of about 64 KiB, at line ends where it can.
func pieces(s string) []string {
	const size = 64 << 10
	var out []string
	for len(s) > size {
		cut := strings.LastIndexByte(s[:size], '\n')
		if cut < size/2 {
			cut = size
			for cut > 0 && s[cut]&0xC0 == 0x80 {
				cut--
			}
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

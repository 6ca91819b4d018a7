package store

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3"
)

// Bodies in parts.
//
// A response or text longer than PartSize is stored as its head (at most
// HeadSize bytes) in the event's row and the rest in event_parts, one row
// per part of at most PartSize bytes, numbered from 1 (seq) with its
// byte offset in the whole body. The head is small because the row is
// read for any of its columns: those after the bodies (the sizes, the
// key...) are reached only through the bodies' overflow pages. Each cut
// is at a UTF-8 boundary, and preferably just after a newline, else a
// space, else a closing punctuation mark, within the last few KiB before
// the limit, so no word is split.
//
// The searchable body (the text when there is one, else the response:
// searchBody) is indexed part by part: the head with the event in
// events_fts and (its first TrigramBytes) events_tri, every further part
// in event_parts_fts and, within the body's first TrigramBytes,
// event_parts_tri (rowid = the
// part's id; indexed says which: 1 words, 2 trigrams). A part is indexed
// with the end of the piece before it (overlapTail), so a phrase or a
// long token cut in two is still found. No full-text document is then
// much larger than a part, and SQLite's memory for an insert is bounded
// by the part, not by the body.

// PartSize is the largest piece of a body kept in one row and indexed as
// one full-text document (1 MiB). Tests lower it; it is read when events
// are written, so stores written with different sizes read the same.
var PartSize = 1 << 20

// TrigramBytes is how much of a body the trigram index covers: its first
// MiB; the word index covers all of it. A trigram is a token at every
// byte, three quarters of the CPU of storing a 1 MiB result (150-200 ms
// against 41-48 ms with 64 KiB). A 64 KiB reach was tried and dropped:
// a substring (part of an identifier glued to other text) in the middle
// of a 1 MiB result was then not found, and a result must be searchable
// to its last byte (TestSearchShowBigBodies, TestBigBodies).
var TrigramBytes int64 = 1 << 20

// Bits of event_parts.indexed: the indexes that hold a part.
const (
	indexWords    = 1
	indexTrigrams = 2
)

// HeadSize is the most of a body stored in parts that the event's row
// keeps (64 KiB, or PartSize if lower): what Event, EventByRef, Around
// and search hits load of it.
var HeadSize = 64 << 10

const (
	// cutLookback is how far back from the limit a cut looks for a line
	// or word boundary.
	cutLookback = 4 << 10
	// partOverlap is how much of the piece before a part (at most) is
	// indexed again with it.
	partOverlap = 512
	// minPartSize keeps a lowered PartSize workable.
	minPartSize = 16
)

// Field names one of an event's two bodies.
type Field string

// The fields a body can be read from.
const (
	FieldResponse Field = "response"
	FieldText     Field = "text"
)

func (f Field) valid() bool { return f == FieldResponse || f == FieldText }

func partSize() int { return max(PartSize, minPartSize) }

// split cuts body into pieces: the head, then the parts. A body of at
// most size bytes is all head; a longer one has a head of at most
// HeadSize bytes and parts of at most size bytes.
func split(body string, size int) []string {
	if len(body) <= size {
		return []string{body}
	}
	n := cut(body, min(max(HeadSize, minPartSize), size))
	out := []string{body[:n]}
	body = body[n:]
	for len(body) > size {
		n := cut(body, size)
		out = append(out, body[:n])
		body = body[n:]
	}
	return append(out, body)
}

// cut returns where to end a piece of s (longer than limit): just after
// the last newline, else space, else closing punctuation in the last
// cutLookback bytes before limit, else at the last UTF-8 character start.
func cut(s string, limit int) int {
	lo := limit - min(cutLookback, limit/4)
	win := s[lo:limit]
	for _, set := range []string{"\n", " \t\r", ",;)]}>"} {
		if i := strings.LastIndexAny(win, set); i >= 0 {
			return lo + i + 1
		}
	}
	for n := limit; n > 0 && n > limit-utf8.UTFMax; n-- {
		if utf8.RuneStart(s[n]) {
			return n
		}
	}
	return limit // not UTF-8: any cut will do
}

// overlapTail is what of prev (the piece before a part) is indexed again
// with the part: its last partOverlap bytes, from just after their first
// space (or from a character start), so no word is indexed cut. It reads
// only the last partOverlap bytes of prev, so readers can rebuild it from
// them.
func overlapTail(prev string) string {
	if len(prev) <= partOverlap {
		return prev
	}
	t := prev[len(prev)-partOverlap:]
	if i := strings.IndexAny(t, " \t\r\n"); i >= 0 {
		return t[i+1:]
	}
	for i := 0; i < utf8.UTFMax-1 && i < len(t); i++ {
		if utf8.RuneStart(t[i]) {
			return t[i:]
		}
	}
	return t
}

// partWriter stores (and indexes) the parts of bodies, inside Apply's
// transaction.
type partWriter struct {
	conn            *sqlite3.Conn
	ins, words, tri *sqlite3.Stmt
}

func (s *Store) newPartWriter() (*partWriter, error) {
	w := &partWriter{conn: s.conn}
	var err error
	if w.ins, _, err = s.conn.Prepare(`INSERT INTO event_parts(event_id, field, seq, offset, bytes, indexed, data) VALUES(?,?,?,?,?,?,?)`); err != nil {
		return w, err
	}
	if w.words, _, err = s.conn.Prepare(`INSERT INTO event_parts_fts(rowid, body) VALUES(?,?)`); err != nil {
		return w, err
	}
	w.tri, _, err = s.conn.Prepare(`INSERT INTO event_parts_tri(rowid, body) VALUES(?,?)`)
	return w, err
}

func (w *partWriter) close() {
	if w == nil {
		return
	}
	for _, st := range []*sqlite3.Stmt{w.ins, w.words, w.tri} {
		if st != nil {
			st.Close()
		}
	}
}

// write stores pieces[1:] of one field of event id (pieces[0], the head,
// is in the event's row), and indexes them when the field is the
// searchable one. One part at a time: SQLite never holds more than one.
func (w *partWriter) write(id int64, f Field, pieces []string, index bool) error {
	off := int64(len(pieces[0]))
	for seq := 1; seq < len(pieces); seq++ {
		p := pieces[seq]
		var indexed int64 // which indexes hold the part
		if index {
			indexed = indexWords
			if off < TrigramBytes {
				indexed |= indexTrigrams
			}
		}
		bindAll(w.ins, id, string(f), int64(seq), off, int64(len(p)), indexed, p)
		if err := w.ins.Exec(); err != nil {
			return err
		}
		off += int64(len(p))
		if indexed == 0 {
			continue
		}
		part := w.conn.LastInsertRowID()
		tail := overlapTail(pieces[seq-1])
		doc := indexText(tail + p)
		for _, st := range []*sqlite3.Stmt{w.words, w.tri} {
			if st == w.tri && indexed&indexTrigrams == 0 {
				continue
			}
			text := doc
			if st == w.tri {
				text = trigramText(doc, off-int64(len(p)+len(tail)))
			}
			bindAll(st, part, text)
			if err := st.Exec(); err != nil {
				return err
			}
		}
	}
	return nil
}

// hasParts reports whether the schema has event_parts (a read-only store
// of an older version does not).
func (s *Store) hasParts() bool { return s.version >= 5 }

// read runs fn in a read transaction, so what it reads in several
// statements (a head and its parts) is one snapshot.
func (s *Store) read(fn func() error) error {
	if !s.conn.GetAutocommit() {
		return fn() // already in one
	}
	if err := s.conn.Exec(`BEGIN`); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer s.conn.Exec(`ROLLBACK`)
	return fn()
}

// head reads one field's head and whole size from an event's row.
func (s *Store) head(id int64, f Field) (string, int64, error) {
	if !f.valid() {
		return "", 0, fmt.Errorf("store: no field %q", f)
	}
	col := string(f)
	size := `NULL`
	if s.hasParts() {
		size = col + `_size`
	}
	st, _, err := s.conn.Prepare(`SELECT ` + col + `, ` + size + ` FROM events WHERE id = ?`)
	if err != nil {
		return "", 0, fmt.Errorf("store: %w", err)
	}
	defer st.Close()
	st.BindInt64(1, id)
	if !st.Step() {
		if err := st.Err(); err != nil {
			return "", 0, fmt.Errorf("store: %w", err)
		}
		return "", 0, fmt.Errorf("%w: event %d", ErrNotFound, id)
	}
	head := st.ColumnText(0)
	total := int64(len(head))
	if st.ColumnType(1) != sqlite3.NULL {
		total = st.ColumnInt64(1)
	}
	return head, total, nil
}

// ReadBody returns bytes [offset, offset+length) of one field of event id
// (cut at the field's end; "" from its end on), reading only the head
// and the parts the range overlaps. The edges are exact bytes: a caller
// that wants whole characters moves them (mcpserver's get_event does).
func (s *Store) ReadBody(id int64, f Field, offset, length int64) (string, error) {
	if offset < 0 || length < 0 {
		return "", fmt.Errorf("store: bad range %d+%d", offset, length)
	}
	if form, err := s.responseForm(id, f); err != nil {
		return "", err
	} else if form != "" {
		w := &window{from: offset, to: offset + length}
		if _, err := s.writeDerived(w, id, form); err != nil && err != errStop {
			return "", wrap(err)
		}
		return string(w.out), nil
	}
	var b strings.Builder
	err := s.read(func() error {
		head, total, err := s.head(id, f)
		if err != nil {
			return err
		}
		end := min(offset+length, total)
		if offset >= end {
			return nil
		}
		b.Grow(int(end - offset))
		if offset < int64(len(head)) {
			b.WriteString(head[offset:min(end, int64(len(head)))])
		}
		if end <= int64(len(head)) || !s.hasParts() {
			return nil
		}
		st, _, err := s.conn.Prepare(`SELECT offset, data FROM event_parts
			WHERE event_id = ?1 AND field = ?2 AND offset < ?4 AND offset + bytes > ?3 ORDER BY seq`)
		if err != nil {
			return err
		}
		defer st.Close()
		bindAll(st, id, string(f), offset, end)
		for st.Step() {
			at := st.ColumnInt64(0)
			data := st.ColumnRawText(1)
			from, to := max(offset-at, 0), min(end-at, int64(len(data)))
			if from < to {
				b.Write(data[from:to])
			}
		}
		if err := st.Err(); err != nil {
			return err
		}
		if int64(b.Len()) != end-offset {
			return fmt.Errorf("store: event %d: %s has %d of bytes %d-%d (parts missing)", id, f, b.Len(), offset, end)
		}
		return nil
	})
	if err != nil {
		return "", wrap(err)
	}
	return b.String(), nil
}

// WriteBody writes one whole field of event id to w, a part at a time,
// and returns how many bytes it wrote.
func (s *Store) WriteBody(w io.Writer, id int64, f Field) (int64, error) {
	form, err := s.responseForm(id, f)
	if err != nil {
		return 0, err
	}
	if form != "" {
		n, err := s.writeDerived(w, id, form)
		return n, wrap(err)
	}
	return s.writeStored(w, id, f)
}

// responseForm is the form of event id's response when f is the
// response and it is derived (derived.go), else "".
func (s *Store) responseForm(id int64, f Field) (string, error) {
	if f != FieldResponse || !s.hasParts() {
		return "", nil
	}
	st, _, err := s.conn.Prepare(`SELECT response_form FROM events WHERE id = ?`)
	if err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	defer st.Close()
	st.BindInt64(1, id)
	if !st.Step() {
		if err := st.Err(); err != nil {
			return "", fmt.Errorf("store: %w", err)
		}
		return "", fmt.Errorf("%w: event %d", ErrNotFound, id)
	}
	return st.ColumnText(0), nil
}

// writeStored writes a field as stored (head, then parts).
func (s *Store) writeStored(w io.Writer, id int64, f Field) (int64, error) {
	var n int64
	err := s.read(func() error {
		head, total, err := s.head(id, f)
		if err != nil {
			return err
		}
		k, err := io.WriteString(w, head)
		n += int64(k)
		if err != nil || n == total || !s.hasParts() {
			return err
		}
		st, _, err := s.conn.Prepare(`SELECT data FROM event_parts WHERE event_id = ? AND field = ? ORDER BY seq`)
		if err != nil {
			return err
		}
		defer st.Close()
		bindAll(st, id, string(f))
		for st.Step() {
			k, err := w.Write(st.ColumnRawText(0))
			n += int64(k)
			if err != nil {
				return err
			}
		}
		if err := st.Err(); err != nil {
			return err
		}
		if n != total {
			return fmt.Errorf("store: event %d: %s has %d of %d bytes (parts missing)", id, f, n, total)
		}
		return nil
	})
	return n, wrap(err)
}

// partDoc returns what part id was indexed as (the end of the piece
// before it, then the part) and the offset of that text in the body.
func (s *Store) partDoc(part int64) (string, int64, error) {
	st, _, err := s.conn.Prepare(`SELECT p.offset, p.data, CASE WHEN p.seq = 1
			THEN (SELECT substr(CAST(CASE p.field WHEN 'text' THEN e.text ELSE e.response END AS BLOB), -?2) FROM events e WHERE e.id = p.event_id)
			ELSE (SELECT substr(CAST(q.data AS BLOB), -?2) FROM event_parts q WHERE q.event_id = p.event_id AND q.field = p.field AND q.seq = p.seq - 1)
		END FROM event_parts p WHERE p.id = ?1`)
	if err != nil {
		return "", 0, err
	}
	defer st.Close()
	bindAll(st, part, int64(partOverlap))
	if !st.Step() {
		if err := st.Err(); err != nil {
			return "", 0, err
		}
		return "", 0, fmt.Errorf("%w: part %d", ErrNotFound, part)
	}
	tail := overlapTail(st.ColumnText(2))
	return tail + st.ColumnText(1), st.ColumnInt64(0) - int64(len(tail)), nil
}

// wrap prefixes an error with the package, once.
func wrap(err error) error {
	if err == nil || strings.HasPrefix(err.Error(), "store: ") {
		return err
	}
	return fmt.Errorf("store: %w", err)
}

// trigramHead is what of a head the trigram index takes: at most its
// first TrigramBytes, cut at a character start.
func trigramHead(s string) string {
	if int64(len(s)) <= TrigramBytes {
		return s
	}
	return s[:runeCut(s, int(TrigramBytes))]
}

// TrigramFull is how much of a body the trigram index takes whole: its
// first 64 KiB. From there to TrigramBytes it takes only the tokens the
// word index cannot find by a part of them (trigramToken): a trigram is
// a token at every byte, and a whole MiB of them was three quarters of
// the writer's time for a 1 MiB result. Plain words past it are found
// whole, by the word index, to the body's last byte.
var TrigramFull int64 = 64 << 10

// trigramText is what the trigram index takes of s, indexed text that
// starts at byte from of its body: whole below TrigramFull, past it the
// tokens trigramToken keeps, each once, on a line of its own. The
// trigram index only says which documents hold a substring (search
// scores it 0 and takes snippets from the body), so a token repeated
// in one document (a JSON result's key, e-mail address or date on every
// record) is worth one entry: a 1 MiB Jira result was half the
// trigram tokenizer's time before they were written once.
func trigramText(s string, from int64) string {
	if from+int64(len(s)) <= TrigramFull {
		return s
	}
	keep := 0
	if from < TrigramFull {
		keep = int(TrigramFull - from)
		for keep < len(s) && !trigramSep(s[keep]) {
			keep++ // the token across the reach is kept whole
		}
	}
	var b strings.Builder
	b.Grow(keep + (len(s)-keep)/4)
	b.WriteString(s[:keep])
	seen := make(map[string]struct{})
	for i := keep; i < len(s); {
		for i < len(s) && trigramSep(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !trigramSep(s[j]) {
			j++
		}
		if tok := s[i:j]; trigramToken(tok) {
			if _, dup := seen[tok]; !dup {
				seen[tok] = struct{}{}
				b.WriteByte('\n')
				b.WriteString(tok)
			}
		}
		i = j
	}
	return b.String()
}

// trigramSep reports whether c ends a token for trigramText: white space
// and the punctuation around JSON strings, lists and markup. What joins
// an identifier (- _ . / : @ # and the like) does not.
func trigramSep(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', ',', ';', '(', ')', '[', ']', '{', '}', '<', '>':
		return true
	}
	return false
}

// maxWordLen is the longest run of letters trigramText takes for a word
// that the word index finds whole. Most words of prose are shorter; a
// longer run is kept, so a term glued to the letters around it (a
// compound name, words run together, a term written over another) is
// still found by a part of it.
const maxWordLen = 12

// trigramToken reports whether tok is one a search finds by a part of
// it, so the trigram index must hold it: an identifier, path, address or
// key (punctuation inside it, letters with digits, a capital after its
// first letter: CVX-5909, svc12, svcHandler, src/a.ts:12) or text the
// word index takes as one long token (any non-ASCII byte: CJK has no
// spaces), or a run of letters too long to be a word someone searches
// whole (a blob, words glued together). A word of letters (capitalised
// or not) and a number are found whole by the word index; the
// punctuation that ends a sentence or a key (. : ! ?) is not part of a
// token.
func trigramToken(tok string) bool {
	tok = strings.Trim(tok, ".:!?")
	if len(tok) > maxWordLen {
		return true
	}
	letters, digits := false, false
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		switch {
		case c >= 0x80:
			return true
		case c >= '0' && c <= '9':
			digits = true
		case c >= 'a' && c <= 'z':
			letters = true
		case c >= 'A' && c <= 'Z':
			if i > 0 {
				return true
			}
			letters = true
		default:
			return true
		}
	}
	return letters && digits
}

package store

import (
	"fmt"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ncruces/go-sqlite3"
)

// Chunk is a stored transcript chunk: one logical turn.
type Chunk struct {
	ID int64 `json:"id"`
	abi.Chunk
}

// ChunkHit is one chunk found by SearchChunks.
type ChunkHit struct {
	Chunk   Chunk   `json:"chunk"`
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet"`
	// Offset is where in the chunk's text the snippet's match starts.
	Offset int64 `json:"offset"`
	// Missing are the query's terms the chunk does not hold.
	Missing []string `json:"missing,omitempty"`
}

const chunkCols = `id, ts_ms, session, harness, path, cwd, text, bytes, redactions`

func scanChunk(st *sqlite3.Stmt) Chunk {
	return Chunk{ID: st.ColumnInt64(0), Chunk: abi.Chunk{TimeMS: st.ColumnInt64(1), Session: st.ColumnText(2),
		Harness: st.ColumnText(3), Path: st.ColumnText(4), Cwd: st.ColumnText(5), Text: st.ColumnText(6),
		Bytes: st.ColumnInt(7), Redactions: st.ColumnInt(8)}}
}

// TranscriptOffset is how far a transcript has been indexed.
func (s *Store) TranscriptOffset(path string) (int64, error) {
	st, _, err := s.conn.Prepare(`SELECT offset FROM transcripts WHERE path = ?`)
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	defer st.Close()
	st.BindText(1, path)
	if st.Step() {
		return st.ColumnInt64(0), nil
	}
	return 0, st.Err()
}

// ApplyChunks stores chunks of path and moves its offset to offset, in one
// transaction, so a chunk is never stored twice nor skipped.
func (s *Store) ApplyChunks(path string, chunks []abi.Chunk, offset, nowMS int64) error {
	err := s.tx(func() error {
		ins, _, err := s.conn.Prepare(`INSERT INTO chunks(ts_ms, session, harness, path, cwd, text, bytes, redactions) VALUES(?,?,?,?,?,?,?,?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		var idx []*sqlite3.Stmt
		for _, t := range []string{"chunks_fts", "chunks_tri"} {
			st, _, err := s.conn.Prepare(`INSERT INTO ` + t + `(rowid, body) VALUES(?, ?)`)
			if err != nil {
				return err
			}
			defer st.Close()
			idx = append(idx, st)
		}
		for _, c := range chunks {
			bindAll(ins, c.TimeMS, c.Session, c.Harness, path, c.Cwd, c.Text, int64(c.Bytes), int64(c.Redactions))
			if err := ins.Exec(); err != nil {
				return err
			}
			id := s.conn.LastInsertRowID()
			for _, st := range idx {
				bindAll(st, id, c.Text)
				if err := st.Exec(); err != nil {
					return err
				}
			}
		}
		up, _, err := s.conn.Prepare(`INSERT INTO transcripts(path, offset, updated_ms) VALUES(?,?,?)
			ON CONFLICT(path) DO UPDATE SET offset = excluded.offset, updated_ms = excluded.updated_ms`)
		if err != nil {
			return err
		}
		defer up.Close()
		bindAll(up, path, offset, nowMS)
		return up.Exec()
	})
	if err != nil {
		return fmt.Errorf("store: write chunks: %w", err)
	}
	return nil
}

// ResetTranscript forgets a transcript that shrank (rewritten or
// rotated): its chunks go, and it is indexed from the start again.
func (s *Store) ResetTranscript(path string) error {
	return s.tx(func() error {
		st, _, err := s.conn.Prepare(`SELECT id FROM chunks WHERE path = ?`)
		if err != nil {
			return err
		}
		st.BindText(1, path)
		var ids []int64
		for st.Step() {
			ids = append(ids, st.ColumnInt64(0))
		}
		st.Close()
		for _, id := range ids {
			for _, t := range []string{"chunks_fts", "chunks_tri"} {
				if err := s.conn.Exec(fmt.Sprintf(`DELETE FROM %s WHERE rowid = %d`, t, id)); err != nil {
					return err
				}
			}
		}
		del, _, err := s.conn.Prepare(`DELETE FROM chunks WHERE path = ?1`)
		if err != nil {
			return err
		}
		defer del.Close()
		bindAll(del, path)
		if err := del.Exec(); err != nil {
			return err
		}
		off, _, err := s.conn.Prepare(`DELETE FROM transcripts WHERE path = ?1`)
		if err != nil {
			return err
		}
		defer off.Close()
		bindAll(off, path)
		return off.Exec()
	})
}

// ChunkByID returns one chunk.
func (s *Store) ChunkByID(id int64) (Chunk, error) {
	st, _, err := s.conn.Prepare(`SELECT ` + chunkCols + ` FROM chunks WHERE id = ?`)
	if err != nil {
		return Chunk{}, fmt.Errorf("store: %w", err)
	}
	defer st.Close()
	st.BindInt64(1, id)
	if !st.Step() {
		if err := st.Err(); err != nil {
			return Chunk{}, err
		}
		return Chunk{}, fmt.Errorf("%w: chunk c%d", ErrNotFound, id)
	}
	return scanChunk(st), nil
}

// ChunksAround returns up to before chunks preceding and after following
// chunk id in its session, in order, the chunk included.
func (s *Store) ChunksAround(id int64, before, after int) ([]Chunk, error) {
	anchor, err := s.ChunkByID(id)
	if err != nil {
		return nil, err
	}
	return around(s, "chunks", chunkCols, scanChunk, anchor, anchor.Session, id, before, after)
}

// SearchChunks is SearchTotal over transcript chunks.
func (s *Store) SearchChunks(q Query, o SearchOptions) ([]ChunkHit, int, error) {
	if o.Limit <= 0 {
		o.Limit = 10
	}
	r, err := s.rank(chunksCorpus, q, o)
	if err != nil {
		return nil, 0, err
	}
	hits := make([]ChunkHit, 0, len(r.ids))
	for _, id := range r.ids {
		c, err := s.ChunkByID(id)
		if err != nil {
			return nil, 0, err
		}
		missing := r.missing(id)
		snippet, at, _ := snippetOf(c.Text, r.plan.snippetTerms(missing), snippetWidth, false, false)
		hits = append(hits, ChunkHit{Chunk: c, Score: r.scores[id], Snippet: snippet, Offset: int64(at), Missing: missing})
	}
	return hits, max(r.total, len(hits)), nil
}

// ChunkCount returns how many transcript chunks are indexed.
func (s *Store) ChunkCount() (int64, error) {
	n, err := s.count(`SELECT count(*) FROM chunks`, nil)
	return int64(n), err
}

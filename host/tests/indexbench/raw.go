package main

import (
	"fmt"
	"time"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ncruces/go-sqlite3"
)

// rawInsert times the store alone: the turns index --all stored (already
// cut and redacted), written into a new store the way index writes them
// (per transcript, one transaction per 256 KiB of turns). Beside the
// command's figure it shows what the rest costs: reading, decoding and
// redacting.
func rawInsert(indexed, dst string, n int64) error {
	src, err := sqlite3.Open(indexed)
	if err != nil {
		return err
	}
	defer src.Close()
	st, err := store.Open(dst, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	q, _, err := src.Prepare(`SELECT ts_ms, session, harness, path, cwd, text, bytes, redactions FROM chunks ORDER BY id`)
	if err != nil {
		return err
	}
	defer q.Close()
	var batch []abi.Chunk
	var size, text int64
	var took time.Duration
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		t0 := time.Now()
		err := st.ApplyChunks(batch[0].Path, batch, size, 0)
		took += time.Since(t0)
		batch, size = batch[:0], 0
		return err
	}
	for q.Step() {
		c := abi.Chunk{TimeMS: q.ColumnInt64(0), Session: q.ColumnText(1), Harness: q.ColumnText(2), Path: q.ColumnText(3),
			Cwd: q.ColumnText(4), Text: q.ColumnText(5), Bytes: q.ColumnInt(6), Redactions: q.ColumnInt(7)}
		if len(batch) > 0 && (c.Path != batch[0].Path || size >= 256<<10) {
			if err := flush(); err != nil {
				return err
			}
		}
		batch = append(batch, c)
		size += int64(len(c.Text))
		text += int64(len(c.Text))
	}
	if err := flush(); err != nil {
		return err
	}
	fmt.Printf("the store alone (the same %.0f MB of redacted turns inserted, no reading or plugin): %s: %.2f MB/s of turns, %.2f MB/s of history\n",
		float64(text)/1e6, took.Round(100*time.Millisecond), float64(text)/1e6/took.Seconds(), float64(n)/1e6/took.Seconds())
	return q.Err()
}

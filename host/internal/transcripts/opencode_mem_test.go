package transcripts

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSessionReaderLetsGo: a session read to its end no longer holds its
// rendering. Every job of a database keeps its reader for the whole run,
// so a 100 MB database stayed in memory to the end (a second run over 1 GB
// of history, indexing nothing, peaked at 262 MB; 150 MB now).
func TestSessionReaderLetsGo(t *testing.T) {
	b, err := os.ReadFile("../../../testdata/transcripts/opencode-1.18.33.db")
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "opencode.db")
	os.WriteFile(db, b, 0o600)
	jobs, err := DBJobs(db, "opencode", time.Minute)
	if err != nil || len(jobs) == 0 {
		t.Fatalf("%d jobs, %v", len(jobs), err)
	}
	r := &sessionReader{db: db, session: jobs[0].Path[len(db)+1:]}
	half, size, err := r.read("", 0, 1)
	if err != nil || size == 0 || r.doc == nil {
		t.Fatalf("a first read: %d of %d bytes, %v; rendered: %v", len(half), size, err, r.doc != nil)
	}
	all, _, err := r.read("", 0, size)
	if err != nil || int64(len(all)) != size {
		t.Fatalf("the whole session: %d of %d bytes, %v", len(all), size, err)
	}
	if r.doc != nil {
		t.Errorf("read to its end, the session's rendering (%d bytes) is still held", len(r.doc))
	}
	if again, _, err := r.read("", 0, size); err != nil || string(again) != string(all) {
		t.Errorf("read again: %d bytes, %v", len(again), err)
	}
}

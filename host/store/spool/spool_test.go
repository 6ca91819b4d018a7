package spool

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/testdir"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ncruces/go-sqlite3"
)

func event(body string) abi.Event {
	return abi.Event{TimeMS: 1, Session: "s", Harness: "claude-code", HookEvent: "PostToolUse", Category: "mcp",
		Tool: "mcp__tickets__get_ticket", Server: "tickets", Response: body, ResponseBytes: len(body)}
}

// TestWriteReplayOnce: spooled events (a small one, and one big enough to
// travel as a blob) reach a real store once, even when the same request is
// spooled twice (a hook and its finisher), and the spool is empty after.
func TestWriteReplayOnce(t *testing.T) {
	dir := testdir.New(t)
	spoolDir := filepath.Join(dir, "spool")
	big := "BIGMARK " + strings.Repeat("x", 2*abi.BlobMin)
	for _, durable := range []bool{false, true} {
		if err := Write(spoolDir, []abi.Event{event("SMALLMARK ticket"), event(big)}, nil, "req-1", durable); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(spoolDir, "*.jsonl"))
	for _, f := range files {
		if fi, _ := os.Stat(f); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v", f, fi.Mode().Perm())
		}
	}
	st, err := store.Open(filepath.Join(dir, "ctxhook.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n := Replay(spoolDir, st, 0, nil); n != 2 {
		t.Fatalf("replayed %d files, want 2", n)
	}
	for _, mark := range []string{"SMALLMARK", "BIGMARK"} {
		hits, err := st.Search(store.ParseQuery(mark), store.SearchOptions{})
		if err != nil || len(hits) != 1 {
			t.Errorf("%s: %d hits (%v), want exactly 1", mark, len(hits), err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(spoolDir, "*")); len(left) != 0 {
		t.Errorf("left in the spool: %v", left)
	}
}

// TestCorruptSetAside: a damaged spool file is set aside, not retried on
// every replay, and what it held before the damage is stored.
func TestCorruptSetAside(t *testing.T) {
	dir := testdir.New(t)
	spoolDir := filepath.Join(dir, "spool")
	if err := Write(spoolDir, []abi.Event{event("GOODMARK first")}, nil, "", false); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(spoolDir, "*.jsonl"))
	f, _ := os.OpenFile(files[0], os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{not json\n")
	f.Close()
	st, err := store.Open(filepath.Join(dir, "ctxhook.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var warned []string
	Replay(spoolDir, st, 0, func(w string) { warned = append(warned, w) })
	if len(warned) != 1 || !strings.Contains(warned[0], "set aside") {
		t.Errorf("warnings %q", warned)
	}
	if hits, _ := st.Search(store.ParseQuery("GOODMARK"), store.SearchOptions{}); len(hits) != 1 {
		t.Errorf("the line before the damage: %d hits", len(hits))
	}
	if corrupt, _ := filepath.Glob(filepath.Join(spoolDir, "*.corrupt")); len(corrupt) != 1 {
		t.Errorf("set aside: %v", corrupt)
	}
	if n := Replay(spoolDir, st, 0, nil); n != 0 {
		t.Errorf("the corrupt file was replayed again")
	}
}

// FuzzRead: a spool file's bytes, whatever they are (a damaged disk, a
// planted file), read back as batches or an error; never a panic, a hang
// or a blob larger than the bytes that hold it.
func FuzzRead(f *testing.F) {
	for _, evs := range [][]abi.Event{{event("small")}, {event(strings.Repeat("b", abi.BlobMin+1))}} {
		b, _ := encodeSpooled(spooled{Events: evs, Request: "r"})
		f.Add(bytes.Join(b, nil))
	}
	f.Add([]byte(`{"events":[],"blobs":[{"field":"events.0.response","bytes":99999999}]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		for range 100 {
			s, err := readSpooled(r, int64(len(data)))
			if err != nil {
				return
			}
			n := 0
			for _, e := range s.Events {
				n += len(e.Response) + len(e.Text) + len(e.Args)
			}
			if n > len(data) {
				t.Fatalf("read %d bytes of strings from %d bytes", n, len(data))
			}
		}
	})
}

// TestBlobBoundIsTheFile: a damaged line that claims a blob larger than
// its file is refused before a buffer of the claimed size is made; the
// bound is the file's own size, not a limit borrowed from another layer.
func TestBlobBoundIsTheFile(t *testing.T) {
	for _, claim := range []int{99 << 20, 200 << 20} {
		data := []byte(fmt.Sprintf(`{"events":[{"key":"k"}],"blobs":[{"field":"events.0.response","bytes":%d}]}`+"\n", claim))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := readSpooled(bufio.NewReader(bytes.NewReader(data)), int64(len(data)))
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "spool: blob events.0.response") {
			t.Errorf("claim of %d bytes: err %v, want the blob refused", claim, err)
		}
		if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<20 {
			t.Errorf("claim of %d bytes allocated %d bytes before failing", claim, grown)
		}
	}
}

// TestDamagedUnderWriterKeepsFile: a store whose files are truncated and
// whose WAL is removed while a writer holds it open takes the writer's
// next commit into the WAL the writer still holds, and the writer reads
// the event back from there; a reader opened now (ctxhook mcp) finds the
// store damaged. The spool file must stay, for get_event to serve, for
// each of the damages tried, and a store that is whole again takes it.
func TestDamagedUnderWriterKeepsFile(t *testing.T) {
	for _, damage := range []string{"truncate", "truncate+wal", "replace"} {
		t.Run(damage, func(t *testing.T) {
			dir := testdir.New(t)
			spoolDir, db := filepath.Join(dir, "spool"), filepath.Join(dir, "ctxhook.db")
			st, err := store.Open(db, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { st.Close() }()
			first := event("FIRSTMARK before the damage")
			first.Key = "e00000000000000a1"
			if _, err := st.Apply([]abi.Event{first}, nil); err != nil {
				t.Fatal(err)
			}
			damageStore(t, db, damage)
			ev := event("AFTERMARK " + strings.Repeat("row of the big result\n", 4000))
			ev.Key = "e00000000000000b2"
			if err := Write(spoolDir, []abi.Event{ev}, nil, "req-after", true); err != nil {
				t.Fatal(err)
			}
			var warned []string
			n, _, failed := replay(spoolDir, st, 0, func(w string) { warned = append(warned, w) })
			if _, ok := Find(spoolDir, ev.Key); !ok || n != 0 || failed == nil {
				t.Fatalf("%s: replayed %d, failed %v, in the spool %v; warnings %q", damage, n, failed, ok, warned)
			}
			t.Logf("%s: %v", damage, failed)
			// Mended (made anew): the file is stored from the spool.
			st.Close()
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(db + suffix)
			}
			if st, err = store.Open(db, store.Options{}); err != nil {
				t.Fatal(err)
			}
			if n := Replay(spoolDir, st, 0, nil); n != 1 {
				t.Fatalf("into a new store: replayed %d files, want 1", n)
			}
			if _, err := st.EventByRef(ev.Key); err != nil {
				t.Errorf("after the mend: %v", err)
			}
		})
	}
}

// damageStore damages the store at db under an open connection: the main
// file cut to two pages after a checkpoint folded the WAL into it, the
// main file cut and the WAL and shared memory removed (what they held
// lives on only in the writer's open files), or the three replaced by an
// empty store's.
func damageStore(t *testing.T, db, damage string) {
	t.Helper()
	switch damage {
	case "truncate", "truncate+wal":
		if damage == "truncate" {
			c, err := sqlite3.Open(db)
			if err == nil {
				err = c.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
				c.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
		} else {
			os.Remove(db + "-wal")
			os.Remove(db + "-shm")
		}
		if err := os.Truncate(db, 8192); err != nil {
			t.Fatal(err)
		}
	case "replace":
		other := filepath.Join(filepath.Dir(db), "other.db")
		o, err := store.Open(other, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		o.Close()
		os.Remove(db + "-wal")
		os.Remove(db + "-shm")
		if err := os.Rename(other, db); err != nil {
			t.Fatal(err)
		}
	}
}

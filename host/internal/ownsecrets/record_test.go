package ownsecrets

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// rotated is a session document as the plugin writes it after n
// rotations of one server's token: the current one and the last 32
// retired (the plugin keeps no more).
func rotated(n int) string {
	var retired []string
	for i := max(0, n-32); i < n; i++ {
		retired = append(retired, strconv.Quote(fmt.Sprintf("rotation-%04d-tok", i)))
	}
	return fmt.Sprintf(`{"tokens":{"wf":"rotation-%04d-tok"},"retired":[%s]}`, n, strings.Join(retired, ","))
}

// TestRecordKeepsEveryRotation: after 40 rotations in one session the
// document retired the first token long ago, and the record still holds
// it, through planted documents and the document's removal.
func TestRecordKeepsEveryRotation(t *testing.T) {
	p, sd := home(t)
	for n := range 41 {
		doc := rotated(n)
		if err := Note(p.StateDir(), doc); err != nil {
			t.Fatal(err)
		}
		sd.Write("session/s", doc)
	}
	if strings.Contains(rotated(40), "rotation-0000-tok") {
		t.Fatal("the document still holds the first token: the test proves nothing")
	}
	for i := range 700 {
		sd.Write(fmt.Sprintf("session/planted-%d", i), `{}`)
	}
	sd.Remove([]string{"session/s"})
	got := RecordValues(p.StateDir())
	for n := range 41 {
		if v := fmt.Sprintf("rotation-%04d-tok", n); !slices.Contains(got, v) {
			t.Errorf("%s lost: %q", v, got)
		}
	}
	if got[0] != "rotation-0040-tok" {
		t.Errorf("newest is %q, want rotation-0040-tok first", got[0])
	}
}

// TestRecordRefused: a record that is a link, or that others may read,
// is neither read nor written; hooks fall back to the newest documents.
func TestRecordRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(path string) error
	}{
		{"link", func(path string) error {
			os.WriteFile(path+".real", []byte(`"planted-link-value"`+"\n"), 0o600)
			return os.Symlink(path+".real", path)
		}},
		{"readable by others", func(path string) error {
			if err := os.WriteFile(path, []byte(`"planted-open-value"`+"\n"), 0o600); err != nil {
				return err
			}
			return os.Chmod(path, 0o644)
		}},
		{"fifo", func(path string) error { return mkfifo(path) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, sd := home(t)
			path := filepath.Join(p.StateDir(), RecordName)
			if err := tc.make(path); err != nil {
				t.Skip(err)
			}
			sd.Write("session/a", `{"tokens":{"wf":"in-a-document-00"}}`)
			got := RecordValues(p.StateDir())
			if !slices.Equal(got, []string{"in-a-document-00"}) {
				t.Errorf("RecordValues = %q, want the document's token only", got)
			}
			if err := Note(p.StateDir(), `{"tokens":{"wf":"noted-value-0000"}}`); err == nil {
				t.Error("Note wrote a refused record")
			}
		})
	}
}

// TestRecordCompacts: past twice its bounds the record is rewritten with
// its newest values, and keeps taking new ones.
func TestRecordCompacts(t *testing.T) {
	defer func(m, b int) { recordMax, recordBytes = m, b }(recordMax, recordBytes)
	recordMax, recordBytes = 50, 1<<20
	p, _ := home(t)
	for i := range 2*recordMax + 1 {
		if err := Note(p.StateDir(), fmt.Sprintf(`{"tokens":{"wf":"value-%05d-xx"}}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(p.StateDir(), RecordName))
	if n := strings.Count(string(b), "\n"); n != recordMax {
		t.Errorf("%d lines after compaction, want %d", n, recordMax)
	}
	recordOf(p.StateDir()).stamp = "" // as another process
	got := RecordValues(p.StateDir())
	if len(got) != recordMax || got[0] != fmt.Sprintf("value-%05d-xx", 2*recordMax) || slices.Contains(got, "value-00000-xx") {
		t.Errorf("after compaction: %d values, newest %q", len(got), got[0])
	}
}

// TestRecordParallelWriters: processes noting values at once lose none
// of them.
func TestRecordParallelWriters(t *testing.T) {
	if dir := os.Getenv("OWNSECRETS_TEST_WRITER"); dir != "" {
		w := os.Getenv("OWNSECRETS_TEST_WRITER_ID")
		for i := range 150 {
			if err := Note(dir, fmt.Sprintf(`{"tokens":{"wf":"w%s-value-%04d"}}`, w, i)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	p, _ := home(t)
	const writers = 6
	var cmds []*exec.Cmd
	for w := range writers {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRecordParallelWriters$")
		cmd.Env = append(os.Environ(), "OWNSECRETS_TEST_WRITER="+p.StateDir(), "OWNSECRETS_TEST_WRITER_ID="+strconv.Itoa(w))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	got := RecordValues(p.StateDir())
	for w := range writers {
		for i := range 150 {
			if v := fmt.Sprintf("w%d-value-%04d", w, i); !slices.Contains(got, v) {
				t.Fatalf("%s lost (%d values)", v, len(got))
			}
		}
	}
	if len(got) != writers*150 {
		t.Errorf("%d values, want %d", len(got), writers*150)
	}
}

// FuzzParseRecord: lines as Note writes them give back their values,
// newest first, whatever damaged line stands before them.
func FuzzParseRecord(f *testing.F) {
	f.Add("garbage\"\n", "value-one-0000", "va\"lue\\two<&>")
	f.Add("", "\x00\x01-control-x", "é-unicode-value")
	f.Fuzz(func(t *testing.T, junk, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) || len(a) < minLen || len(b) < minLen || a == b {
			return
		}
		var rec []byte
		for _, v := range []string{a, b} {
			line, _ := json.Marshal(v)
			rec = append(append(rec, line...), '\n')
		}
		got, _ := parseRecord(append([]byte(junk+"\n"), rec...))
		if len(got) < 2 || got[0] != b || got[1] != a {
			t.Fatalf("parseRecord: %q, want %q then %q first", got, b, a)
		}
		parseRecord([]byte(junk)) // any bytes: no panic
	})
}

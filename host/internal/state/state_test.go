package state

import (
	"errors"
	"github.com/ctxhook/ctxhook/internal/testdir"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestReadWrite(t *testing.T) {
	d, err := Open(filepath.Join(testdir.New(t), "s"))
	if err != nil {
		t.Fatal(err)
	}
	key := "session/../../etc/passwd"
	if got, _ := d.Read([]string{key}); len(got) != 0 {
		t.Fatalf("fresh read = %v", got)
	}
	if err := d.Write(key, `{"n":1}`); err != nil {
		t.Fatal(err)
	}
	got, err := d.Read([]string{key, "other"})
	if err != nil || got[key] != `{"n":1}` || len(got) != 1 {
		t.Fatalf("Read = %v, %v", got, err)
	}
	files, _ := os.ReadDir(d.path)
	for _, f := range files {
		if strings.Contains(f.Name(), "passwd") || strings.Contains(f.Name(), "..") {
			t.Errorf("raw key in file name %q", f.Name())
		}
		fi, _ := f.Info()
		if fi.Mode().Perm() != 0o600 && runtime.GOOS != "windows" { // Windows has no mode bits
			t.Errorf("%s mode %v", f.Name(), fi.Mode().Perm())
		}
	}
}

func TestLockSerialises(t *testing.T) {
	d, _ := Open(testdir.New(t))
	unlock, err := d.Lock([]string{"k"}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Lock([]string{"k"}, 20*time.Millisecond); !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock err = %v, want ErrLocked", err)
	}
	unlock()
	// Many goroutines incrementing through the lock never lose an update.
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			un, err := d.Lock([]string{"c"}, 5*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			defer un()
			v, _ := d.Read([]string{"c"})
			d.Write("c", v["c"]+"x")
		}()
	}
	wg.Wait()
	if v, _ := d.Read([]string{"c"}); len(v["c"]) != 20 {
		t.Fatalf("lost updates: %q", v["c"])
	}
}

// FuzzSessionPath: whatever a harness sends as a session id (a key is
// built from it), the state file is a plain name directly inside the
// state directory, and two different keys never share a file.
func FuzzSessionPath(f *testing.F) {
	for _, s := range []string{"../x", `..\x`, "./victim", "/etc/passwd", "a\x00b", "CON", "NUL", "COM1", "x.", "x ", "Ab", "aB",
		strings.Repeat("k", 1024), "séance", "😀", "session/..", ""} {
		f.Add("session/"+s, "session/"+s+"x")
	}
	d := Dir{path: filepath.FromSlash("/state/root")}
	f.Fuzz(func(t *testing.T, a, b string) {
		pa := d.file(a)
		if filepath.Dir(pa) != d.path || filepath.Clean(pa) != pa || strings.ContainsAny(filepath.Base(pa), "/\\\x00") {
			t.Fatalf("key %q maps to %q, not a plain file in %s", a, pa, d.path)
		}
		if a != b && pa == d.file(b) {
			t.Fatalf("keys %q and %q share %s", a, b, pa)
		}
	})
}

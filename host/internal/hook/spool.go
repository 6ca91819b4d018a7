package hook

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// spooled is one line of a spool file: the effects of one hook the store
// could not take at the time.
type spooled struct {
	Events  []abi.Event  `json:"events"`
	Tallies []abi.Effect `json:"tallies,omitempty"`
	// Request names the hook's batch (Engine.request), if it has one.
	Request string `json:"request,omitempty"`
}

// spoolSeq tells apart files one process spools in the same nanosecond.
var spoolSeq atomic.Uint64

// spool writes the effects to their own 0600 file, so concurrent hooks never
// interleave writes. The events are already redacted by the plugin.
//
// With durable the file is fsynced: that is the path for events the store
// refused, which may wait long. Without, it survives the death of the
// process (the kernel holds it) but not of the machine, the same promise
// the store makes in WAL mode with synchronous=NORMAL; the daemon spools
// so before it answers, and its writer stores the file moments later.
func spool(dir string, events []abi.Event, tallies []abi.Effect, request string, durable bool) error {
	if err := paths.EnsureDir(dir); err != nil {
		return err
	}
	b, err := json.Marshal(spooled{Events: events, Tallies: tallies, Request: request})
	if err != nil {
		return err
	}
	name := filepath.Join(dir, fmt.Sprintf("%d-%d-%d.jsonl", time.Now().UnixNano(), os.Getpid(), spoolSeq.Add(1)))
	f, err := os.OpenFile(name+".tmp", os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if durable {
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(name+".tmp", name)
}

// ReplaySpool moves every spooled event into st and reports how many
// files it stored. The daemon's writer calls it after each answer.
func ReplaySpool(p paths.Paths, st *store.Store) int { return replaySpool(p.SpoolDir(), st) }

// replaySpool moves spooled events into the store. A file is claimed by
// renaming it first, so two hooks never replay the same file twice; a file
// that fails to apply is put back for the next try. A file claimed by a
// process that died before it finished is taken back: its transaction
// was rolled back with it.
func replaySpool(dir string, st *store.Store) int {
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	orphans, _ := filepath.Glob(filepath.Join(dir, "*.jsonl.replaying-*"))
	for _, o := range orphans {
		pid, err := strconv.Atoi(o[strings.LastIndex(o, "-")+1:])
		if err == nil && pid != os.Getpid() && syscall.Kill(pid, 0) == syscall.ESRCH {
			files = append(files, o)
		}
	}
	n := 0
	for _, f := range files {
		orig := f
		if i := strings.Index(f, ".replaying-"); i >= 0 {
			orig = f[:i]
		}
		claimed := orig + fmt.Sprintf(".replaying-%d", os.Getpid())
		if os.Rename(f, claimed) != nil {
			continue // another process took it
		}
		if err := replayFile(claimed, filepath.Base(orig), st); err != nil {
			os.Rename(claimed, orig)
			continue
		}
		os.Remove(claimed)
		n++
	}
	return n
}

// replayFile stores each line of a spool file once: a line is named by
// its hook's request, else by file and line, and the store skips a name
// it has applied (a writer killed between commit and delete leaves the
// file to be replayed again).
func replayFile(name, base string, st *store.Store) error {
	fh, err := os.Open(name)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 2*MaxInput)
	for line := 1; sc.Scan(); line++ {
		var s spooled
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return err
		}
		name := s.Request // the hook's own name, else the file's line
		if name == "" {
			name = base + ":" + strconv.Itoa(line)
		}
		if _, err := st.ApplyOnce(store.Batch{Name: name}, s.Events, s.Tallies); err != nil {
			return err
		}
	}
	return sc.Err()
}

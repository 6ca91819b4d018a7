package hook

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
}

// spool writes the effects to their own 0600 file, so concurrent hooks never
// interleave writes. The events are already redacted by the plugin.
func spool(dir string, events []abi.Event, tallies []abi.Effect) error {
	if err := paths.EnsureDir(dir); err != nil {
		return err
	}
	b, err := json.Marshal(spooled{Events: events, Tallies: tallies})
	if err != nil {
		return err
	}
	name := filepath.Join(dir, fmt.Sprintf("%d-%d.jsonl", time.Now().UnixNano(), os.Getpid()))
	f, err := os.OpenFile(name+".tmp", os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(name+".tmp", name)
}

// replaySpool moves spooled events into the store. A file is claimed by
// renaming it first, so two hooks never replay the same file twice; a file
// that fails to apply is put back for the next try.
func replaySpool(dir string, st *store.Store) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, f := range files {
		claimed := strings.TrimSuffix(f, ".jsonl") + fmt.Sprintf(".replaying-%d", os.Getpid())
		if os.Rename(f, claimed) != nil {
			continue // another process took it
		}
		if err := replayFile(claimed, st); err != nil {
			os.Rename(claimed, f)
			continue
		}
		os.Remove(claimed)
	}
}

func replayFile(name string, st *store.Store) error {
	fh, err := os.Open(name)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 2*MaxInput)
	for sc.Scan() {
		var s spooled
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return err
		}
		if _, err := st.Apply(s.Events, s.Tallies); err != nil {
			return err
		}
	}
	return sc.Err()
}

package chaos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/internal/homeprocs"
	"github.com/ctxhook/ctxhook/plugin/wasmsum"
)

// TestColdBurst: hooks started at once on an empty compilation cache (no
// install, as after the cache was cleared), through the hook client. Each
// must answer within its deadline (10 s), exactly one compilation of the
// plugin may run in all the processes together, and every event must be
// in the store afterwards, once. Compilations are counted by the line
// each one appends to CTXHOOK_TEST_COMPILE_LOG (the runner writes it for
// every load that found no ready marker, so a load that compiled beside
// another is counted too), and cross-checked by the entries wazero left
// in the cache (one plugin entry per build compiled; a second compilation
// of the same build would rewrite the same entry, hence the log).
//
// CTXHOOK_COLD_HOOKS sets the burst (default 64); CTXHOOK_CHAOS_BIN, a
// directory holding ctxhook and ctxhook-hook, runs other binaries (built
// with -tags ctxhook_testhooks, or no compilation is logged).
func TestColdBurst(t *testing.T) {
	if os.Getenv("CTXHOOK_CHAOS") == "" {
		t.Skip("set CTXHOOK_CHAOS=1 (make chaos)")
	}
	n := env(t, "CTXHOOK_COLD_HOOKS", 64)
	bin := os.Getenv("CTXHOOK_CHAOS_BIN") // binaries built elsewhere (another version, to compare)
	if bin == "" {
		bin = build(t)
	}
	raw, err := os.ReadFile("../../../testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	var base map[string]any
	json.Unmarshal(raw, &base)
	for _, c := range []struct {
		name     string
		hooks    int
		busy     int
		noDaemon bool
		stale    bool
	}{
		{"alone", 1, 0, false, false},
		{"burst", n, 0, false, false},
		{"burst-busy", n, 2, false, false},
		{"burst-nodaemon", n, 0, true, false},
		// A marker of another compiler version: the hook client takes the
		// cache for warm and runs `ctxhook hook`, which sees the exact
		// marker missing and waits for the daemon (the cli's
		// viaStartingDaemon).
		{"burst-stale-marker", 16, 0, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			coldBurst(t, bin, base, c.hooks, c.busy, c.noDaemon, c.stale)
		})
	}
}

type coldOutcome struct {
	marker         string
	took           time.Duration
	err            error
	stdout, stderr string
}

func coldBurst(t *testing.T, bin string, base map[string]any, n, busy int, noDaemon, stale bool) {
	home, hookEnv, p := newHome(t, "cxo")
	if stale {
		os.MkdirAll(p.WasmCache(), 0o700)
		os.WriteFile(filepath.Join(p.WasmCache(), "ready-"+wasmsum.SHA256[:16]+"-v0.0.1-fast"), nil, 0o600)
	}
	log := filepath.Join(home, "compiles")
	hookEnv = append(hookEnv, "CTXHOOK_TEST_COMPILE_LOG="+log)
	if noDaemon {
		hookEnv = append(hookEnv, "CTXHOOK_NO_DAEMON=1")
	}
	for range busy {
		spin := exec.Command("sh", "-c", "while :; do :; done")
		if err := spin.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { spin.Process.Kill(); spin.Wait() }()
	}
	cmds := make([]*exec.Cmd, n)
	outs := make([]coldOutcome, n)
	var bufs [][2]*bytes.Buffer
	for i := range cmds {
		outs[i].marker = fmt.Sprintf("coldN%02dB%dS%vH%03d", n, busy, stale, i)
		cmd := exec.Command(filepath.Join(bin, "ctxhook-hook"), "claude-code", "PostToolUse")
		cmd.Env = hookEnv
		cmd.Stdin = bytes.NewReader(payload(t, base, outs[i].marker))
		b := [2]*bytes.Buffer{{}, {}}
		cmd.Stdout, cmd.Stderr = b[0], b[1]
		cmds[i], bufs = cmd, append(bufs, b)
	}
	var wg sync.WaitGroup
	for i, cmd := range cmds {
		began := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := cmd.Wait()
			outs[i].took, outs[i].err = time.Since(began), err
			outs[i].stdout, outs[i].stderr = bufs[i][0].String(), bufs[i][1].String()
		}()
	}
	wg.Wait()

	var took []time.Duration
	handedOn := 0
	for _, o := range outs {
		took = append(took, o.took)
		if o.err != nil {
			t.Errorf("%s: %v; stderr %q", o.marker, o.err, o.stderr)
		}
		if o.took >= hookproto.Default {
			t.Errorf("%s: answered after %v, past the %v deadline; stderr %q", o.marker, o.took.Round(time.Millisecond), hookproto.Default, o.stderr)
		}
		if o.stdout != "" && !json.Valid([]byte(o.stdout)) {
			t.Errorf("%s: invalid answer %q", o.marker, o.stdout)
		}
		if strings.Contains(o.stderr, "finishes in the background") {
			handedOn++
		}
	}
	slices.Sort(took)

	// The finishers end, the daemon's writer stores what was spooled, and
	// a replay takes anything left.
	for end := time.Now().Add(hookproto.Late); time.Now().Before(end) && homeprocs.Finishers(home) > 0; {
		time.Sleep(100 * time.Millisecond)
	}
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if left, _ := filepath.Glob(filepath.Join(p.SpoolDir(), "*.jsonl")); len(left) == 0 {
			break
		}
	}
	homeprocs.KillDaemons(home)
	replay := exec.Command(filepath.Join(bin, "ctxhook"), "io", "replay")
	replay.Env = hookEnv
	if out, err := replay.CombinedOutput(); err != nil {
		t.Errorf("replay: %v %s", err, out)
	}
	st, err := store.Open(p.DB(), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lost := 0
	for _, o := range outs {
		hits, err := st.Search(store.ParseQuery(o.marker), store.SearchOptions{Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 {
			lost++
			t.Errorf("%s: %d events, want 1; answered after %v (%v), stdout %.80q stderr %q", o.marker, len(hits), o.took.Round(time.Millisecond), o.err, o.stdout, o.stderr)
		}
	}

	logged, _ := os.ReadFile(log)
	compiles := strings.Count(string(logged), "\n")
	entries := 0
	filepath.WalkDir(p.WasmCache(), func(path string, d fs.DirEntry, err error) error {
		// Each build leaves the plugin's entry (about 20 MB) and one of
		// extism's small runtime module beside it: the plugin's count.
		if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() && fi.Size() > 1<<20 {
			entries++
		}
		return nil
	})
	if compiles != 1 || entries != 1 {
		t.Errorf("%d compilations logged (%q), %d cache entries: want one of each", compiles, logged, entries)
	}
	t.Logf("%d cold hooks at once (%d busy loops, no daemon %v): answered in %v (min) %v (median) %v (max); %d handed on; %d compilation(s) [%s], %d cache entries; %d lost",
		n, busy, noDaemon, took[0].Round(time.Millisecond), took[len(took)/2].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond),
		handedOn, compiles, strings.TrimSpace(string(logged)), entries, lost)
}

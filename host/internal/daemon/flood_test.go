//go:build linux

package daemon_test

import (
	"debug/buildinfo"
	"encoding/binary"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/internal/bigpayload"
	"github.com/ctxhook/ctxhook/internal/homeprocs"
)

// FloodPeakLimit is the most the daemon may hold at its peak under the
// flood of TestDaemonFlood (VmHWM): three same-user clients each
// sending 1 GiB.
const FloodPeakLimit = 600e6

// TestDaemonFlood: three clients of the same user each send the daemon
// 1 GiB: one as frames of 16 fields of 64 MiB (reconnecting whenever the
// daemon refuses one), two as requests of the daemon's own build whose
// payloads are junk of 128 MiB (the most a hook takes) and of 64 MiB, while a fourth declares one field of
// 1 GiB and a normal hook is asked for. The daemon's peak RSS (VmHWM, read from
// /proc) stays under FloodPeakLimit, the normal hook gets the daemon's
// own decision during the flood, and the memory goes back to the system
// once the flood ends. Before frames were bounded, one such client took
// the daemon to 1.1 GB, kept after it left, and three to 2.8 GB.
func TestDaemonFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 3 GiB")
	}
	f := newFixture(t)
	d := f.startDaemon()
	r := Flood(t, f.paths().Socket(), f.ctxhook, d.Process.Pid)
	t.Logf("flood: %.0f MiB sent, %d frames refused; daemon peak %.0f MB, %.0f MB after; a normal hook answered in %v during it",
		float64(r.Sent)/(1<<20), r.Refused, float64(r.Peak)/1e6, float64(r.After)/1e6, r.Normal.Round(time.Millisecond))
	if r.Peak > FloodPeakLimit {
		t.Errorf("daemon peak RSS %.0f MB under the flood, want under %.0f MB", float64(r.Peak)/1e6, FloodPeakLimit/1e6)
	}
	if r.NormalErr != "" {
		t.Errorf("a normal hook during the flood: %s", r.NormalErr)
	}
	if r.After > 250e6 {
		t.Errorf("daemon RSS %.0f MB after the flood ended, want it given back (under 250 MB)", float64(r.After)/1e6)
	}
	if rss, _ := homeprocs.Memory(d.Process.Pid); rss == 0 {
		t.Errorf("the daemon is gone after the flood")
	}
}

// FloodResult is what Flood measured.
type FloodResult struct {
	Sent        int64         // bytes the daemon read from the flooders
	Refused     int64         // frames it refused (connections it closed mid-frame)
	Peak, After int64         // VmHWM at the end; VmRSS a few seconds after
	Normal      time.Duration // how long the normal hook took
	NormalErr   string        // "" when the daemon answered it with a decision
}

// Flood runs the flood of TestDaemonFlood against the daemon at sock
// (process pid, built as bin) and measures it.
func Flood(t testing.TB, sock, bin string, pid int) FloodResult {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	id := hookproto.IDOf(bi)
	var res FloodResult
	var sent, refused atomic.Int64
	chunk := make([]byte, 64<<20)
	for i := range chunk {
		chunk[i] = 'x'
	}
	big := make([]byte, hookproto.MaxInput) // the largest payload a hook takes
	for i := range big {
		big[i] = 'y'
	}
	var wg sync.WaitGroup
	deadline := time.Now().Add(90 * time.Second)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			left := int64(1 << 30)
			for left > 0 && time.Now().Before(deadline) {
				var n int64
				var ok bool
				switch i {
				case 0:
					n, ok = floodFrame(sock, chunk, 16, left)
				case 1:
					n, ok = floodRequest(sock, id, big)
				default:
					n, ok = floodRequest(sock, id, chunk)
				}
				sent.Add(n)
				left -= n
				if !ok {
					refused.Add(1)
				}
			}
		}()
	}
	wg.Add(1)
	go func() { // one field declared at 1 GiB
		defer wg.Done()
		c, err := net.Dial("unix", sock)
		if err != nil {
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		var h [8]byte
		binary.BigEndian.PutUint32(h[:4], 5)
		binary.BigEndian.PutUint32(h[4:], 1<<30)
		c.Write(h[:])
		n, _ := c.Write(chunk)
		sent.Add(int64(n))
	}()
	time.Sleep(time.Second) // the flood under way
	start := time.Now()
	res.NormalErr = askNormal(sock, id)
	res.Normal = time.Since(start)
	wg.Wait()
	_, res.Peak = homeprocs.Memory(pid)
	time.Sleep(3 * time.Second)
	res.After, _ = homeprocs.Memory(pid)
	res.Sent, res.Refused = sent.Load(), refused.Load()
	return res
}

// floodFrame sends one frame of count fields of len(chunk) bytes, at most
// left bytes in all, and returns how many the daemon took and whether it
// took the whole frame.
func floodFrame(sock string, chunk []byte, count int, left int64) (int64, bool) {
	c, err := net.Dial("unix", sock)
	if err != nil {
		time.Sleep(10 * time.Millisecond)
		return 0, false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	var h [4]byte
	binary.BigEndian.PutUint32(h[:], uint32(count))
	if _, err := c.Write(h[:]); err != nil {
		return 0, false
	}
	var n int64
	for range count {
		binary.BigEndian.PutUint32(h[:], uint32(len(chunk)))
		if _, err := c.Write(h[:]); err != nil {
			return n, false
		}
		k, err := c.Write(chunk[:min(int64(len(chunk)), left-n)])
		n += int64(k)
		if err != nil {
			return n, false
		}
		if n >= left {
			break
		}
	}
	// The frame is whole: wait for the daemon to close or answer.
	var b [1]byte
	c.Read(b[:])
	return n, true
}

// floodRequest sends one well-formed request whose payload is chunk (not
// JSON), and returns how many bytes the daemon took and whether it
// answered.
func floodRequest(sock, id string, chunk []byte) (int64, bool) {
	c, err := net.Dial("unix", sock)
	if err != nil {
		time.Sleep(10 * time.Millisecond)
		return 0, false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	req := hookproto.Request{Harness: "claude-code", Event: "PostToolUse", Deadline: 15 * time.Second, Payload: chunk}
	if err := hookproto.Write(c, req.Fields(id)...); err != nil {
		return 0, false
	}
	ans, err := hookproto.Read(c)
	return int64(len(chunk)), err == nil && len(ans) > 0 && string(ans[0]) == "ok"
}

// askNormal asks the daemon for one small hook, with the daemon's build
// id, and says what was wrong with its answer ("" when it is a decision).
func askNormal(sock, id string) string {
	payload, err := os.ReadFile("../../../testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json")
	if err != nil {
		return err.Error()
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	req := hookproto.Request{Harness: "claude-code", Event: "PostToolUse", ID: "flood-normal", Deadline: 15 * time.Second, Payload: payload}
	if err := hookproto.Write(c, req.Fields(id)...); err != nil {
		return "sending: " + err.Error()
	}
	ans, err := hookproto.Read(c)
	if err != nil {
		return "no answer: " + err.Error()
	}
	if len(ans) < 5 || string(ans[0]) != "ok" || string(ans[4]) != "" {
		var fields []string
		for _, a := range ans {
			fields = append(fields, string(a))
		}
		return "answer without a decision: " + string(joinFields(fields))
	}
	return ""
}

func joinFields(f []string) []byte {
	var b []byte
	for i, s := range f {
		if i > 0 {
			b = append(b, " | "...)
		}
		b = append(b, s...)
	}
	return b
}

// TestRefusedFallsBack: a request the daemon has no room for is refused
// with a clear line in its log, and the hook client decides it
// in-process, as with no daemon: the answer is a decision and the result
// is stored and searchable.
func TestRefusedFallsBack(t *testing.T) {
	f := newFixture(t)
	cmd := exec.Command(f.ctxhook, "daemon", "-v")
	cmd.Env = append(append([]string{}, f.env...), "CTXHOOK_DAEMON_TEST_IN_FLIGHT=1048576")
	var log lockedLog
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		if _, err := os.Stat(f.paths().Socket()); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	p := bigpayload.ClaudePostToolUse(2<<20, "refusedQ7", "refused-session", "toolu_refusedQ7")
	out, errOut, _ := f.hook("PostToolUse", p)
	if out != "" && !json.Valid([]byte(out)) {
		t.Fatalf("invalid answer %q", out)
	}
	if strings.Contains(errOut, "continues without ctxhook") {
		t.Errorf("the hook failed open: %s", errOut)
	}
	if f.searchFor("refusedQ7", 60*time.Second) < 0 {
		t.Errorf("the refused hook's result was not stored (stderr %q)", errOut)
	}
	if !strings.Contains(log.String(), "refused a request: daemon: too many bytes in flight") {
		t.Errorf("the daemon did not say it refused the request: %q", log.String())
	}
}

type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Command ctxhook-hook is the hook client: `ctxhook-hook <harness> <event>`
// does what `ctxhook hook <harness> <event>` does, fast. It relays the
// payload to the ctxhook daemon over a Unix socket and prints the answer;
// it decides nothing. Whenever the daemon is missing, hung, of another
// build, or the socket is not this user's, it hands the payload to
// `ctxhook hook` in-process (the same plugin.wasm), and starts a daemon
// for the next call.
//
// It links only os, syscall and small packages of its own (no plugin, no
// SQLite, not even net): Go runs every linked package's init at start,
// and the full binary's take milliseconds; net would also link the
// system's C library (cgo), and a dynamically linked process starts about
// 1.5 ms slower than a static one.
package main

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/hookproto"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/plugin/wasmsum"
)

// MaxInput matches the hook command's limit.
const MaxInput = hookproto.MaxInput

// answerMargin is what the client keeps of the deadline for itself: past
// it, with no answer from the daemon, it answers without one.
const answerMargin = 20 * time.Millisecond

// daemonWait is how long a daemon may take over a small payload before
// the client takes it for hung and runs the hook in-process with the
// rest of the deadline; a larger payload gets longer (waitFor).
const daemonWait = 3 * time.Second

// waitFor is how long to wait for the daemon's answer to n bytes: a
// daemon decides a large payload at tens of MB/s, so 4 MB/s is a
// generous floor. The daemon itself answers by the deadline (it is told
// what is left), so the wait never runs past it.
func waitFor(n int) time.Duration {
	return daemonWait + time.Duration(n/(4<<20))*time.Second
}

// inProcessMin is the least time left for which the client, the daemon
// having failed, runs the hook in-process rather than handing it on; a
// larger payload needs more (inProcessNeeds).
const inProcessMin = 500 * time.Millisecond

// inProcessNeeds is the least time left for an in-process run of n
// bytes: a process of its own loads the plugin and decides the payload,
// at 20 MB/s on a busy machine (the daemon's pace, about half that of a
// quiet one). With less, the run would only hand the hook on at its
// deadline, after reading the payload again.
func inProcessNeeds(n int) time.Duration {
	return inProcessMin + time.Duration(n/20)*time.Microsecond
}

func main() {
	if len(os.Args) != 3 {
		os.Stderr.WriteString("ctxhook: usage: ctxhook-hook <harness> <event>; the agent continues without ctxhook\n")
		os.Exit(0)
	}
	start := time.Now()
	harness, event := os.Args[1], os.Args[2]
	deadline := hookproto.Hook(os.Getenv)
	payload, ok := readStdin(deadline + hookproto.Grace)
	if !ok {
		os.Stderr.WriteString("ctxhook: " + harness + " " + event + ": the payload did not arrive within the hook's deadline; the agent continues without ctxhook\n")
		os.Exit(0)
	}
	if time.Since(start) >= deadline {
		// It arrived in the grace after the deadline: handed on, it is
		// stored (if that fails, the in-process run below hands it on).
		finishLater(harness, event, payload, deadline)
	}
	p, perr := paths.Resolve(os.Getenv)
	if perr == nil && os.Getenv("CTXHOOK_NO_DAEMON") == "" {
		// Every hook gets a name; a hook re-run in-process (or handed on)
		// keeps it, through this environment, so its events are stored
		// once even if the daemon took it and died.
		req := request(harness, event, payload)
		// The daemon is told what is left of the deadline: it answers by
		// then, with no decision if it has none yet, and finishes the hook
		// itself. The client waits as long, and no longer.
		left := deadline - time.Since(start)
		req.Deadline = max(left, time.Millisecond)
		// Handing a big payload on means writing it to a file first: the
		// wait ends early enough for that, so the answer still leaves by
		// the deadline.
		until := time.Now().Add(min(waitFor(len(payload)), left-answerMargin-hookproto.HandOn(len(payload))))
		code, out, errOut, failed, ok := ask(p.Socket(), req, until)
		if ok && failed == hookproto.NoDecision {
			// The daemon finishes the hook, but its work is not on disk
			// yet: the payload is handed on as well, under the same
			// request id, so it is stored once whichever ends first.
			finishLater(harness, event, payload, deadline)
		}
		if ok {
			os.Stdout.Write(out)
			os.Stderr.Write(errOut)
			os.Exit(code)
		}
		left = deadline - time.Since(start)
		if left < inProcessNeeds(len(payload)) {
			// No answer in time (the daemon hangs or died, or it took the
			// payload too slowly: it is busy), and no time to decide here:
			// answer without a decision, and hand the hook to a process of
			// its own, which asks the daemon again and decides it only if
			// the daemon cannot. Under the same request id, it is stored
			// once should the daemon store it too. An in-process run with
			// what is left would hand it on all the same, after loading
			// the plugin and reading the payload again: past the
			// deadline, or dropped.
			finishLater(harness, event, payload, deadline)
		}
		spawnDaemon()
		if daemonPlatform {
			// On a cold start that daemon compiles the plugin, and this
			// hook waits for it instead of compiling it again.
			if cold(p) {
				awaitCompilingDaemon(p, req, start, deadline)
			}
			os.Setenv(hookproto.EnvDaemonStarting, "1")
		}
		// The in-process run gets what is left of the deadline; past it,
		// it answers and finishes in the background.
		rest := max(left, 100*time.Millisecond)
		os.Setenv(hookproto.EnvDeadline, strconv.FormatInt(rest.Milliseconds(), 10))
	} else {
		// With no daemon as well, the in-process run gets what is left:
		// a burst of hooks took seconds to get here on a busy machine.
		rest := max(deadline-time.Since(start), 100*time.Millisecond)
		os.Setenv(hookproto.EnvDeadline, strconv.FormatInt(rest.Milliseconds(), 10))
	}
	inProcess(harness, event, payload)
}

// coldMargin is what a hook waiting for a daemon to compile the plugin
// keeps of its deadline to hand the payload on (start a process).
// Starting a process took over half a second in a burst of hooks on a
// busy machine.
const coldMargin = time.Second

// startSettle is how long a spawned daemon may take to be seen
// compiling (holding the compile lock) or serving, before the hook takes
// it for one that is not coming: a busy machine starts it slowly.
const startSettle = 3 * time.Second

// awaitCompilingDaemon serves a hook on a cold start (no compiled plugin
// in the cache), the daemon just spawned: the daemon compiles the plugin,
// and only it. The hook waits for its socket and asks it; with no answer
// by its deadline (less what handing on takes), or no daemon compiling,
// it answers without a decision and hands the payload on (finishLater),
// so the event is still stored. It does not run `ctxhook hook` here:
// that would load the whole binary in every hook of a burst, seconds on
// a busy machine, and then only wait as well. It returns (to run the
// hook in-process) only if the plugin got compiled but no daemon serves.
func awaitCompilingDaemon(p paths.Paths, req hookproto.Request, start time.Time, deadline time.Duration) {
	harness, event, payload := req.Harness, req.Event, req.Payload
	handOnAt := start.Add(deadline - answerMargin - coldMargin - hookproto.HandOn(len(payload)))
	quiet := time.Now()
	for time.Now().Before(handOnAt) {
		if _, err := os.Lstat(p.Socket()); err == nil {
			// The daemon answers by handOnAt, with no decision if it has
			// none yet.
			req.Deadline = max(time.Until(handOnAt), time.Millisecond)
			code, out, errOut, failed, ok := ask(p.Socket(), req, handOnAt)
			if ok {
				if failed == hookproto.NoDecision {
					finishLater(harness, event, payload, deadline)
				}
				os.Stdout.Write(out)
				os.Stderr.Write(errOut)
				os.Exit(code)
			}
		}
		if compiling(p) {
			quiet = time.Now()
		} else if time.Since(quiet) > startSettle && time.Since(start) > startSettle {
			break // no daemon compiles, none serves: it is not coming
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !cold(p) && time.Until(handOnAt) > inProcessMin {
		return
	}
	finishLater(harness, event, payload, deadline)
}

// cold reports whether the cache holds no compiled plugin of this build
// for the daemon: no marker the runner writes once it has compiled it
// (ready-<plugin sha256 prefix>-<compiler>-fast). A marker of another
// compiler version reads as warm here; `ctxhook hook` then looks at the
// exact one.
func cold(p paths.Paths) bool {
	m, _ := filepath.Glob(filepath.Join(p.WasmCache(), "ready-"+wasmsum.SHA256[:16]+"*-fast"))
	return len(m) == 0
}

// finishLater starts `ctxhook hook` on its own to finish a hook (as
// `ctxhook hook` does at its deadline: hookproto.EnvLate), its stdin a
// file holding the payload (memfile), and exits 0 without an
// answer. If it cannot, the hook runs in-process instead.
func finishLater(harness, event string, payload []byte, deadline time.Duration) {
	f, err := platform.MemFile(payload)
	if err != nil {
		return
	}
	defer f.Close()
	if startDetached([]string{"hook", harness, event}, []string{hookproto.EnvLate + "=1"}, f) != nil {
		return
	}
	os.Stderr.WriteString("ctxhook: " + hookproto.HandedOn(harness, event, deadline) + "\n")
	os.Exit(0)
}

// request is the hook as the daemon is asked it, named: by the name this
// process was given (a hook handed on), else a new one, set in this
// environment for the processes it may hand the hook to. Of the
// environment only what the plugin reads goes along.
func request(harness, event string, payload []byte) hookproto.Request {
	id := os.Getenv(hookproto.EnvRequestID)
	if id == "" {
		id = hookproto.RequestID()
		os.Setenv(hookproto.EnvRequestID, id)
	}
	return hookproto.Request{Harness: harness, Event: event, ID: id,
		Environ: hookproto.PluginEnviron(harness, event, os.Environ()), Payload: payload}
}

// ask sends req to the daemon and waits for its answer until until; ok
// is false when the daemon gives none. failed is the daemon's reason
// when its answer holds no decision.
func ask(sock string, req hookproto.Request, until time.Time) (code int, stdout, stderr []byte, failed string, ok bool) {
	// The socket must be this user's: never hand a payload to a socket
	// someone else planted.
	if !hookproto.SocketIsMine(sock) {
		return 0, nil, nil, "", false
	}
	conn, err := dial(sock, until)
	if err != nil {
		return 0, nil, nil, "", false
	}
	defer conn.Close()
	if hookproto.Write(conn, req.Fields(hookproto.ID())...) != nil {
		return 0, nil, nil, "", false
	}
	ans, err := hookproto.Read(&buffered{c: conn})
	if err != nil || len(ans) < 4 || string(ans[0]) != "ok" {
		// No answer, or a daemon of another build (it did not take it).
		return 0, nil, nil, "", false
	}
	code, err = strconv.Atoi(string(ans[1]))
	if err != nil {
		return 0, nil, nil, "", false
	}
	if len(ans) > 4 {
		failed = string(ans[4])
	}
	return code, ans[2], ans[3], failed, true
}

// readStdin reads the payload, giving up after limit (the hook's deadline
// and hookproto.Grace): a harness that never closes the pipe must not hold
// the hook longer.
// ok is false then. A payload over MaxInput is handed on cut, and
// refused by `ctxhook hook` with a clear message.
func readStdin(limit time.Duration) (payload []byte, ok bool) {
	done := make(chan []byte, 1)
	go func() { done <- readAll(os.Stdin) }()
	t := time.NewTimer(limit)
	select {
	case b := <-done:
		t.Stop()
		return b, true
	case <-t.C:
		return nil, false
	}
}

// readAll reads r to its end (at most MaxInput+1 bytes). The buffer is
// one mapping of that size where the system allows (payloadBuffer): this
// process is new, every page it touches is a first touch, and growing a
// Go slice by doubling cost a tenth of a second for 10 MiB here; a
// mapping in huge pages costs a hundredth. Elsewhere the buffer doubles.
func readAll(f *os.File) []byte {
	if buf := payloadBuffer(MaxInput + 1); buf != nil {
		n := 0
		for n < len(buf) {
			k, err := f.Read(buf[n:])
			n += k
			if err == io.EOF {
				return buf[:n]
			}
			if err != nil {
				return nil
			}
		}
		return buf[:n]
	}
	size := 64 << 10
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
		size = int(min(fi.Size()+1, MaxInput+1))
	}
	b := make([]byte, 0, size)
	for len(b) <= MaxInput {
		if len(b) == cap(b) {
			b = append(b, make([]byte, min(cap(b), MaxInput+1-len(b)))...)[:len(b)]
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b
		}
		if err != nil {
			return nil
		}
	}
	return b
}

// full is the ctxhook binary: CTXHOOK_BIN when it names a binary of this
// user's that no one else may change (ownBinary), else the one next to
// this client. The binary gets the whole unredacted payload and decides
// what is stored and answered, so a variable alone must not choose a
// file another user planted or can rewrite.
func full() string {
	if b := os.Getenv("CTXHOOK_BIN"); b != "" {
		err := ownBinary(b)
		if err == nil {
			return b
		}
		binRefused.Do(func() {
			os.Stderr.WriteString("ctxhook: ignoring CTXHOOK_BIN (" + err.Error() + "); using the ctxhook beside this client\n")
		})
	}
	self, err := os.Executable()
	if err != nil {
		return "ctxhook"
	}
	return filepath.Join(filepath.Dir(self), "ctxhook"+exeSuffix)
}

// binRefused says once per process that CTXHOOK_BIN was ignored.
var binRefused sync.Once

// ownBinary checks the file CTXHOOK_BIN names as ctxhook checks a file it
// writes through a link: every link on the way is this user's, and the
// file at the end is a regular file of this user's that no one else may
// write, in a directory no one else may write.
func ownBinary(path string) error {
	_, err := platform.LinkTarget(path)
	return err
}

// spawnDaemon starts `ctxhook daemon` detached, for the next hook. The
// daemon's lock makes racing spawners harmless: all but one exit at once.
func spawnDaemon() { startDetached([]string{"daemon"}, nil, nil) }

// startDetached starts the ctxhook binary with args, extra on top of
// this environment and stdin in (nil: /dev/null), and leaves it.
func startDetached(args, extra []string, in *os.File) error {
	return platform.StartDetached(full(), args, append(os.Environ(), extra...), in)
}

// buffered reads c through a buffer, so the answer's small length fields
// do not each cost a system call (bufio would do; this keeps the
// client to os and syscall).
type buffered struct {
	c    sockConn
	buf  [16 << 10]byte
	r, w int
}

func (b *buffered) Read(p []byte) (int, error) {
	if b.r == b.w {
		if len(p) >= len(b.buf) {
			return b.c.Read(p)
		}
		n, err := b.c.Read(b.buf[:])
		if err != nil {
			return 0, err
		}
		b.r, b.w = 0, n
	}
	n := copy(p, b.buf[b.r:b.w])
	b.r += n
	return n, nil
}

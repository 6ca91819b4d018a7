package cli

import (
	"fmt"
	"io"
	"time"
)

// progress prints how far a long `ctxhook index` is, with an estimate of
// the time left, on stderr: at most once a second, and only for a run
// with enough to read that it takes a while.
type progress struct {
	w            io.Writer
	total        int64 // bytes to read
	files        int
	read         int64
	start, shown time.Time
	printed      bool
	now          func() time.Time
}

// progressMin is the least a run reads before it shows progress.
const progressMin = 8 << 20

func newProgress(w io.Writer, total int64, files int, start time.Time) *progress {
	return &progress{w: w, total: total, files: files, start: start, shown: start, now: time.Now}
}

// done notes that file n (counting from 1) is finished, bytes read from it.
func (p *progress) done(n int, bytes int64) {
	p.read += bytes
	t := p.now()
	if p.total < progressMin || t.Sub(p.shown) < time.Second {
		return
	}
	p.shown = t
	p.printed = true
	fmt.Fprintln(p.w, p.line(n, t))
}

// line is one progress report: share done, bytes, speed, files, time left.
func (p *progress) line(n int, t time.Time) string {
	el := t.Sub(p.start).Seconds()
	rate := float64(p.read) / max(el, 0.001)
	pct := 100 * float64(p.read) / float64(max(p.total, 1))
	eta := "unknown"
	if rate > 0 {
		eta = time.Duration(float64(max(0, p.total-p.read)) / rate * float64(time.Second)).Round(time.Second).String()
	}
	return fmt.Sprintf("ctxhook: index: %3.0f%% (%s of %s, %.1f MB/s), %d of %d files, about %s left",
		min(pct, 100), mb(p.read), mb(p.total), rate/1e6, n, p.files, eta)
}

// finish prints the last line, when progress was shown at all.
func (p *progress) finish() {
	if p.printed {
		fmt.Fprintln(p.w, p.line(p.files, p.now()))
	}
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

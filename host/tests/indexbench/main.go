// Command indexbench measures `ctxhook index --all` over a generated
// history of every harness's format (about 1 GB by default): its speed in
// MB/s and its peak memory, then runs it again and requires that nothing
// is indexed twice. make bench runs it; it exits 1 when the peak RSS
// passes -max-rss or the second run indexes a turn.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

func main() {
	bin := flag.String("bin", "bin/ctxhook", "the ctxhook binary")
	base := flag.String("baseline", "", "another ctxhook binary (say, an older build) to time on the same history, side by side")
	var size byteSize = 1 << 30
	flag.Var(&size, "size", "bytes of history to generate (100M, 1G)")
	seed := flag.Uint64("seed", 1, "the generator's seed: a seed and a size always give the same history")
	maxRSS := flag.Int64("max-rss", 300, "the most MB of peak RSS allowed")
	fixtures := flag.String("fixtures", "testdata/transcripts", "the recorded histories")
	out := flag.String("out", "", "only generate: write the history under DIR/home and keep it")
	home := flag.String("home", "", "index this generated home (from -out) instead of generating one")
	flag.Parse()
	c := config{bin: *bin, base: *base, fixtures: *fixtures, size: int64(size), seed: *seed, maxRSS: *maxRSS, out: *out, home: *home}
	if err := c.run(); err != nil {
		fmt.Fprintln(os.Stderr, "indexbench:", err)
		os.Exit(1)
	}
}

type config struct {
	bin, base, fixtures, out, home string
	size, maxRSS                   int64
	seed                           uint64
}

func (c config) run() error {
	tmp, err := os.MkdirTemp("", "ctxhook-indexbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	home, n, err := c.history(tmp)
	if err != nil || c.out != "" {
		return err
	}
	if c.base != "" {
		if _, err := timeIndex("baseline "+c.base, c.base, filepath.Join(tmp, "base"), home, n); err != nil {
			return err
		}
	}
	first, err := timeIndex(c.bin, c.bin, tmp, home, n)
	if err != nil {
		return err
	}
	second, err := index(c.bin, tmp, home)
	if err != nil {
		return err
	}
	fmt.Printf("index --all again: %s, peak RSS %d MB; %s\n", second.wall.Round(100*time.Millisecond), second.rssMB, second.summary)
	if first.rssMB > c.maxRSS || second.rssMB > c.maxRSS {
		return fmt.Errorf("peak RSS over %d MB", c.maxRSS)
	}
	if !regexp.MustCompile(`^Indexed 0 new turns`).MatchString(second.summary) {
		return fmt.Errorf("the second run indexed again: %s", second.summary)
	}
	return rawInsert(filepath.Join(tmp, "ctxhook", "state", "ctxhook.db"), filepath.Join(tmp, "raw.db"), n)
}

// history generates the history (under -out, or tmp) or takes -home's; it
// returns the home and its size.
func (c config) history(tmp string) (string, int64, error) {
	if c.home != "" {
		n, err := dirSize(c.home)
		fmt.Printf("history under %s: %.2f GB: %s\n", c.home, float64(n)/1e9, mixOf(c.home))
		return c.home, n, err
	}
	home := filepath.Join(tmp, "home")
	if c.out != "" {
		home = filepath.Join(c.out, "home")
	}
	t0 := time.Now()
	n, err := generate(c.fixtures, home, c.size, c.seed)
	if err != nil {
		return "", 0, err
	}
	fmt.Printf("generated %.2f GB of history (seed %d) in %s: %s\n", float64(n)/1e9, c.seed, time.Since(t0).Round(time.Second), mixOf(home))
	if c.out != "" {
		fmt.Printf("index it with: go run ./host/tests/indexbench -bin %s -home %s\n", c.bin, home)
	}
	return home, n, nil
}

// timeIndex runs index --all on home with its store under dir and prints
// its speed.
func timeIndex(name, bin, dir, home string, n int64) (result, error) {
	r, err := index(bin, dir, home)
	if err != nil {
		return r, err
	}
	fmt.Printf("%s index --all: %.2f GB in %s: %.2f MB/s (%.2f MB per CPU second, %s of CPU), peak RSS %d MB; %s\n", name, float64(n)/1e9,
		r.wall.Round(100*time.Millisecond), float64(n)/1e6/r.wall.Seconds(), float64(n)/1e6/r.cpu.Seconds(), r.cpu.Round(100*time.Millisecond), r.rssMB, r.summary)
	return r, nil
}

// dirSize is how many bytes the files under dir hold.
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return err
	})
	return n, err
}

// byteSize is a flag of bytes: 100M, 1G, or a number.
type byteSize int64

func (b *byteSize) String() string { return fmt.Sprint(int64(*b)) }

func (b *byteSize) Set(s string) error {
	mul := int64(1)
	switch {
	case strings.HasSuffix(s, "G"):
		mul, s = 1<<30, strings.TrimSuffix(s, "G")
	case strings.HasSuffix(s, "M"):
		mul, s = 1<<20, strings.TrimSuffix(s, "M")
	}
	v, err := strconv.ParseInt(s, 10, 64)
	*b = byteSize(v * mul)
	return err
}

type result struct {
	wall    time.Duration
	cpu     time.Duration // user and system time: the speed on a machine of its own
	rssMB   int64
	summary string
}

// index runs `ctxhook index --all` on home, its progress passed through
// to stderr.
func index(bin, tmp, home string) (result, error) {
	cmd := exec.Command(bin, "index", "--all")
	cmd.Env = []string{"HOME=" + home, "CTXHOOK_HOME=" + filepath.Join(tmp, "ctxhook"), "PATH=" + os.Getenv("PATH"),
		"XDG_CACHE_HOME=" + filepath.Join(tmp, "cache")}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = io.MultiWriter(os.Stderr)
	t0 := time.Now()
	err := cmd.Run()
	r := result{wall: time.Since(t0)}
	r.rssMB = peakRSSMB(cmd.ProcessState)
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	r.summary = string(bytes.TrimSpace(bytes.SplitN(out.Bytes(), []byte("\n"), 2)[0]))
	if err != nil {
		return r, fmt.Errorf("%s index --all: %v\n%s", bin, err, out.String())
	}
	return r, nil
}

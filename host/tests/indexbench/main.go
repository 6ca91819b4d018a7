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
	"time"
)

func main() {
	bin := flag.String("bin", "bin/ctxhook", "the ctxhook binary")
	size := flag.Int64("size", 1<<30, "bytes of history to generate")
	maxRSS := flag.Int64("max-rss", 300, "the most MB of peak RSS allowed")
	fixtures := flag.String("fixtures", "testdata/transcripts", "the recorded histories")
	keep := flag.Bool("keep", false, "keep the generated home")
	flag.Parse()
	if err := run(*bin, *fixtures, *size, *maxRSS, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "indexbench:", err)
		os.Exit(1)
	}
}

func run(bin, fixtures string, size, maxRSS int64, keep bool) error {
	tmp, err := os.MkdirTemp("", "ctxhook-indexbench-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("keeping", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	home := filepath.Join(tmp, "home")
	t0 := time.Now()
	n, err := generate(fixtures, home, size)
	if err != nil {
		return err
	}
	fmt.Printf("generated %.2f GB of history in %s: %s\n", float64(n)/1e9, time.Since(t0).Round(time.Second), mixOf(home))
	first, err := index(bin, tmp, home)
	if err != nil {
		return err
	}
	mbs := float64(n) / 1e6 / first.wall.Seconds()
	fmt.Printf("index --all: %.2f GB in %s: %.2f MB/s (%.2f MB per CPU second, %s of CPU), peak RSS %d MB; %s\n", float64(n)/1e9,
		first.wall.Round(100*time.Millisecond), mbs, float64(n)/1e6/first.cpu.Seconds(), first.cpu.Round(100*time.Millisecond), first.rssMB, first.summary)
	second, err := index(bin, tmp, home)
	if err != nil {
		return err
	}
	fmt.Printf("index --all again: %s, peak RSS %d MB; %s\n", second.wall.Round(100*time.Millisecond), second.rssMB, second.summary)
	if first.rssMB > maxRSS || second.rssMB > maxRSS {
		return fmt.Errorf("peak RSS over %d MB", maxRSS)
	}
	if !regexp.MustCompile(`^Indexed 0 new turns`).MatchString(second.summary) {
		return fmt.Errorf("the second run indexed again: %s", second.summary)
	}
	return nil
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

// Package pgcluster starts a throwaway PostgreSQL cluster for tests: one
// initdb under a temporary directory, listening on 127.0.0.1 on a free
// port with password (SCRAM) authentication, so tests connect as the
// roles they create exactly as a team's machines would. PostgreSQL
// refuses to run as root, so when the tests run as root the cluster runs
// as nobody (setpriv), in a directory given to nobody; the directories
// above it are made traversable for as long as it runs, and given their
// modes back by Stop. Every password is random: any local user can reach
// 127.0.0.1, and the superuser's could run programs (COPY TO PROGRAM).
package pgcluster

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrNoPostgres is returned when no PostgreSQL binaries are installed.
var ErrNoPostgres = errors.New("pgcluster: no PostgreSQL binaries (install Debian's postgresql)")

// Cluster is a running (or stopped) throwaway cluster.
type Cluster struct {
	Dir      string // the cluster's root: data/, the log, the socket
	Port     int
	Password string // the superuser's (postgres)
	bin      string
	asUser   []string               // the command prefix that runs as the cluster's owner
	modes    map[string]os.FileMode // directories made traversable, with their modes before
}

// RandomPassword is a fresh 128-bit password, for the superuser and for
// every role a test creates.
func RandomPassword() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on a supported system
	}
	return hex.EncodeToString(b)
}

// Bin finds the newest installed PostgreSQL's bin directory.
func Bin() (string, error) {
	if b := os.Getenv("CTXHOOK_PG_BIN"); b != "" {
		return b, nil
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(found) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			return filepath.Dir(p), nil
		}
		return "", ErrNoPostgres
	}
	sort.Slice(found, func(i, j int) bool { return version(found[i]) < version(found[j]) })
	return filepath.Dir(found[len(found)-1]), nil
}

func version(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

// Start creates a cluster under dir (which must exist and be empty) and
// starts it.
func Start(dir string) (*Cluster, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, bin: bin, Password: RandomPassword()}
	if err := c.start(); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// start is Start's work; on an error Start gives the directories their
// modes back.
func (c *Cluster) start() error {
	if err := c.owner(); err != nil {
		return err
	}
	dir := c.Dir
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte(c.Password+"\n"), 0o600); err != nil {
		return err
	}
	c.chown(pw)
	out, err := c.run("initdb", "-D", c.data(), "-U", "postgres", "--auth=scram-sha-256", "--pwfile="+pw,
		"-E", "UTF8", "--locale=C", "--no-sync")
	os.Remove(pw)
	if err != nil {
		return fmt.Errorf("pgcluster: initdb: %v: %s", err, out)
	}
	if c.Port, err = freePort(); err != nil {
		return err
	}
	return c.Resume()
}

// owner arranges for the cluster to run as nobody when we are root.
func (c *Cluster) owner() error {
	if os.Geteuid() != 0 {
		return nil
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		return fmt.Errorf("pgcluster: running as root needs setpriv: %w", err)
	}
	c.asUser = []string{setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"}
	if err := os.Chmod(c.Dir, 0o755); err != nil {
		return err
	}
	c.modes = map[string]os.FileMode{}
	for d := filepath.Dir(c.Dir); d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
			c.modes[d] = fi.Mode().Perm()
			os.Chmod(d, fi.Mode().Perm()|0o011) // traversable, not listable
		}
	}
	c.chown(c.Dir)
	return nil
}

func (c *Cluster) chown(p string) {
	if c.asUser != nil {
		exec.Command("chown", "nobody:nogroup", p).Run()
	}
}

func (c *Cluster) data() string { return filepath.Join(c.Dir, "data") }

func (c *Cluster) run(name string, args ...string) ([]byte, error) {
	argv := append(append([]string{}, c.asUser...), filepath.Join(c.bin, name))
	argv = append(argv, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	return cmd.CombinedOutput()
}

// Resume starts the cluster (again), on the same port.
func (c *Cluster) Resume() error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 -c shared_buffers=64MB",
		c.Port, c.Dir)
	out, err := c.run("pg_ctl", "-D", c.data(), "-l", filepath.Join(c.Dir, "log"), "-o", opts, "-w", "-t", "60", "start")
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(c.Dir, "log"))
		return fmt.Errorf("pgcluster: start: %v: %s\n%s", err, out, log)
	}
	return nil
}

// Pause stops the cluster fast (connections are cut), keeping its data.
func (c *Cluster) Pause() error {
	out, err := c.run("pg_ctl", "-D", c.data(), "-m", "fast", "-w", "stop")
	if err != nil {
		return fmt.Errorf("pgcluster: stop: %v: %s", err, out)
	}
	return nil
}

// Stop stops the cluster if it runs and gives the directories above it
// their modes back; the caller removes Dir.
func (c *Cluster) Stop() {
	if _, err := os.Stat(filepath.Join(c.data(), "postmaster.pid")); err == nil {
		c.Pause()
	}
	for d, mode := range c.modes {
		os.Chmod(d, mode)
	}
	c.modes = nil
}

// URL is a connection URL for user with password, to database db.
func (c *Cluster) URL(user, password, db string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(user, password),
		Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(c.Port)), Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

// SuperURL connects as the superuser.
func (c *Cluster) SuperURL(db string) string { return c.URL("postgres", c.Password, db) }

// Log is the server's log so far, for a failing test's message.
func (c *Cluster) Log() string {
	b, _ := os.ReadFile(filepath.Join(c.Dir, "log"))
	return strings.TrimSpace(string(b))
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

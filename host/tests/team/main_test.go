// Package team tests the shared store end to end: three users on two
// machines each (six homes, three database roles) run real hooks through
// the hook client and their daemons against one real PostgreSQL, and the
// daemons' shippers send what the hooks stored.
package team

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxhook/ctxhook/host/store/pgstore"
	"github.com/ctxhook/ctxhook/internal/homeprocs"
	"github.com/ctxhook/ctxhook/internal/pgcluster"
	"github.com/jackc/pgx/v5"
)

var (
	cluster  *pgcluster.Cluster
	adminURL string
	bin      string
	noPG     error
	users    = []string{"alice", "bob", "carol"}
	machines = []string{"laptop", "devbox"}
)

// The passwords are random: any local user can reach the cluster's port.
var (
	adminPassword = pgcluster.RandomPassword()
	userSecret    = pgcluster.RandomPassword()
)

func password(user string) string { return "pw-of-" + user + "-" + userSecret }

func TestMain(m *testing.M) {
	if os.Getenv("TEAM_TEST_ROLE") == "server" {
		serveEcho() // the MCP server a home's `ctxhook proxy` stands in for
		return
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "ctxhook-team-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if cluster, err = pgcluster.Start(filepath.Join(dir)); errors.Is(err, pgcluster.ErrNoPostgres) {
		noPG = err
		return m.Run()
	} else if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cluster.Stop()
	if err := setUp(dir); err != nil {
		fmt.Fprintln(os.Stderr, err, cluster.Log())
		return 1
	}
	defer func() {
		for _, h := range allHomes {
			homeprocs.KillDaemons(h.dir)
			os.RemoveAll(h.dir)
		}
	}()
	return m.Run()
}

// setUp makes the database as a team's administrator would (a role that
// may create roles, owning the database), applies the schema, adds the
// three users and builds the binaries.
func setUp(dir string) error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, cluster.SuperURL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, sql := range []string{`CREATE ROLE ctxadmin LOGIN CREATEROLE PASSWORD '` + adminPassword + `'`,
		`CREATE DATABASE ctxhook OWNER ctxadmin`} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return err
		}
	}
	adminURL = cluster.URL("ctxadmin", adminPassword, "ctxhook")
	if _, _, err := pgstore.Init(ctx, adminURL); err != nil {
		return err
	}
	for _, u := range users {
		if err := pgstore.AddUser(ctx, adminURL, u, password(u)); err != nil {
			return err
		}
	}
	bin = filepath.Join(dir, "bin")
	for _, pkg := range []string{"ctxhook", "ctxhook-hook"} {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, pkg), "../../cmd/"+pkg).CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %s", pkg, out)
		}
	}
	return nil
}

func needPG(t *testing.T) {
	if noPG != nil {
		t.Skipf("no PostgreSQL: %v", noPG)
	}
}

// home is one user's ctxhook on one machine.
type home struct {
	user, machine, dir string
	env                []string
}

var (
	homesOnce sync.Once
	allHomes  []*home
)

// homes makes the six homes: each a config naming the shared store (no
// password in it: ~/.pgpass, as docs/team.md says), this machine's name,
// the tickets server shared with the team and relayed, vault private.
func homes(t *testing.T) []*home {
	homesOnce.Do(func() {
		for _, u := range users {
			for _, m := range machines {
				dir, err := os.MkdirTemp("", "cxteam-")
				if err != nil {
					t.Fatal(err)
				}
				h := &home{user: u, machine: m, dir: dir}
				h.setUp(t)
				allHomes = append(allHomes, h)
			}
		}
	})
	return allHomes
}

func (h *home) setUp(t *testing.T) {
	url := fmt.Sprintf("postgres://%s@127.0.0.1:%d/ctxhook?sslmode=disable", h.user, cluster.Port)
	cfg := fmt.Sprintf("[store]\nurl = %q\nmachine = %q\n\n[servers.tickets]\nrelay = true\nshare = \"team\"\n\n[servers.vault]\n", url, h.machine)
	must(t, os.MkdirAll(filepath.Join(h.dir, "config"), 0o700))
	must(t, os.WriteFile(filepath.Join(h.dir, "config", "config.toml"), []byte(cfg), 0o600))
	pgpass := fmt.Sprintf("127.0.0.1:%d:ctxhook:%s:%s\n", cluster.Port, h.user, password(h.user))
	must(t, os.WriteFile(filepath.Join(h.dir, "pgpass"), []byte(pgpass), 0o600))
	h.env = []string{"CTXHOOK_HOME=" + h.dir, "HOME=" + h.dir, "PATH=" + os.Getenv("PATH"),
		"CTXHOOK_DAEMON_IDLE=10m", "PGPASSFILE=" + filepath.Join(h.dir, "pgpass"), "CTXHOOK_TEST_CACHE=" + os.Getenv("CTXHOOK_TEST_CACHE")}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (h *home) session() string { return "sess-" + h.user + "-" + h.machine }

// payload is a Claude Code PostToolUse of server's tool with text as its
// result.
func (h *home) payload(t *testing.T, server, text string) []byte {
	p := map[string]any{"session_id": h.session(), "transcript_path": filepath.Join(h.dir, "t.jsonl"), "cwd": h.dir,
		"hook_event_name": "PostToolUse", "tool_name": "mcp__" + server + "__get", "tool_input": map[string]any{"id": "X-1"},
		"tool_response": []map[string]string{{"type": "text", "text": text}}, "tool_use_id": "toolu_" + strconv.FormatInt(time.Now().UnixNano(), 36)}
	b, err := json.Marshal(p)
	must(t, err)
	return b
}

// hook runs one hook through the hook client (which starts the home's
// daemon) and returns how long it took; a hook must exit 0.
func (h *home) hook(t *testing.T, payload []byte) (time.Duration, error) {
	cmd := exec.Command(filepath.Join(bin, "ctxhook-hook"), "claude-code", "PostToolUse")
	cmd.Env = h.env
	cmd.Stdin = bytes.NewReader(payload)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("%v: %s", err, out.String())
	}
	return time.Since(start), err
}

// hookAll runs in each home, one after another, a hook for each payload
// payloads gives it; a hook that fails fails the test.
func hookAll(t *testing.T, hs []*home, payloads func(h *home) [][]byte) {
	for _, h := range hs {
		for _, p := range payloads(h) {
			if took, err := h.hook(t, p); err != nil {
				t.Fatalf("%s/%s hook: %v (%v)", h.user, h.machine, err, took)
			}
		}
	}
}

// ctxhook runs a ctxhook command in the home.
func (h *home) ctxhook(t *testing.T, args ...string) (string, string, error) {
	cmd := exec.Command(filepath.Join(bin, "ctxhook"), args...)
	cmd.Env = h.env
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	return out.String(), errs.String(), err
}

// adminCount counts as the administrator (who sees every row).
func adminCount(t *testing.T, sql string, args ...any) int64 {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int64
	if err := conn.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitFor polls until count reaches want or the time is up.
func waitFor(t *testing.T, within time.Duration, want int64, sql string, args ...any) int64 {
	var n int64
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		if n = adminCount(t, sql, args...); n >= want {
			return n
		}
	}
	return n
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

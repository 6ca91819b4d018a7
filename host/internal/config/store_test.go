package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/internal/testdir"
)

func TestLoadStore(t *testing.T) {
	dir := testdir.New(t)
	path := filepath.Join(dir, "config.toml")
	text := `[store]
url = "postgres://alice@db.example:5432/ctxhook?sslmode=verify-full"
machine = "laptop"

[servers.jira]
share = "team"

[servers.vault]
relay = true
`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(text); err != nil {
		t.Errorf("a valid [store] is reported: %v", err)
	}
	noEnv := func(string) string { return "" }
	s, err := LoadStore(path, noEnv)
	if err != nil || s.URL != "postgres://alice@db.example:5432/ctxhook?require_auth=scram-sha-256&sslmode=verify-full" || s.Machine != "laptop" || !s.Team["jira"] || s.Team["vault"] {
		t.Fatalf("%+v %v", s, err)
	}
	env := func(k string) string {
		if k == EnvStoreURL {
			return "postgres://bob@127.0.0.1/ctxhook"
		}
		return ""
	}
	if s, _ := LoadStore(path, env); s.URL != "postgres://bob@127.0.0.1/ctxhook?require_auth=scram-sha-256" {
		t.Errorf("the environment does not override: %q", s.URL)
	}
	if s, err := LoadStore(filepath.Join(dir, "none.toml"), noEnv); err != nil || s.URL != "" {
		t.Errorf("missing config: %+v %v", s, err)
	}
	secret := "mysql://u:hunter2@x/db"
	if _, err := LoadStore(path, func(string) string { return secret }); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("bad URL: %v", err)
	}
	_, err = Parse("[servers.jira]\nshare = \"everyone\"\n[store]\nurl = \"http://x\"\n")
	if err == nil || !strings.Contains(err.Error(), "servers.jira.share") || !strings.Contains(err.Error(), "store.url") {
		t.Errorf("bad values not reported: %v", err)
	}
}

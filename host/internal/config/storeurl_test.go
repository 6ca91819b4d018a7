package config

import (
	"strings"
	"testing"
)

// TestSecureStoreURL: a remote shared store needs verified TLS, loopback
// and Unix sockets do not; SCRAM is required over TCP unless the URL or
// the environment chooses; no error echoes the URL's password.
func TestSecureStoreURL(t *testing.T) {
	const scram = "require_auth=scram-sha-256"
	for _, c := range []struct {
		name, url string
		env       map[string]string
		want      string // "" for refused; else a substring of the URL used
		noScram   bool
	}{
		{name: "remote, default sslmode", url: "postgres://alice:hunter2@db.example/ctxhook"},
		{name: "remote, prefer", url: "postgres://alice:hunter2@db.example/ctxhook?sslmode=prefer"},
		{name: "remote, require (no certificate check)", url: "postgres://alice:hunter2@db.example/ctxhook?sslmode=require"},
		{name: "remote, disable", url: "postgresql://alice:hunter2@10.0.0.5:5432/ctxhook?sslmode=disable"},
		{name: "remote, verify-full", url: "postgres://alice:hunter2@db.example/ctxhook?sslmode=verify-full", want: scram},
		{name: "remote, verify-ca", url: "postgres://alice@db.example/ctxhook?sslmode=verify-ca", want: "sslmode=verify-ca"},
		{name: "remote, PGSSLMODE verify-full", url: "postgres://alice@db.example/ctxhook",
			env: map[string]string{"PGSSLMODE": "verify-full"}, want: scram},
		{name: "remote, PGSSLMODE ignored when the URL says prefer", url: "postgres://alice@db.example/ctxhook?sslmode=prefer",
			env: map[string]string{"PGSSLMODE": "verify-full"}},
		{name: "loopback host with a remote host parameter", url: "postgres://alice:hunter2@127.0.0.1/ctxhook?host=db.example"},
		{name: "one remote host of several", url: "postgres://alice:hunter2@localhost:5432,db.example:5432/ctxhook"},
		{name: "localhost", url: "postgres://alice:hunter2@localhost/ctxhook", want: scram},
		{name: "127.0.0.1 with port", url: "postgres://alice@127.0.0.1:5433/ctxhook", want: scram},
		{name: "::1", url: "postgres://alice@[::1]:5432/ctxhook", want: scram},
		{name: "Unix socket", url: "postgres://alice@/ctxhook?host=/var/run/postgresql", want: "host=/var/run/postgresql", noScram: true},
		{name: "URL's own require_auth kept", url: "postgres://alice@localhost/ctxhook?require_auth=md5", want: "require_auth=md5", noScram: true},
		{name: "PGREQUIREAUTH kept", url: "postgres://alice@localhost/ctxhook",
			env: map[string]string{"PGREQUIREAUTH": "password"}, want: "postgres://alice@localhost/ctxhook", noScram: true},
		{name: "not PostgreSQL", url: "mysql://alice:hunter2@localhost/ctxhook"},
		{name: "no host", url: "postgres:///ctxhook"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := SecureStoreURL(c.url, func(k string) string { return c.env[k] })
			if c.want == "" {
				if err == nil {
					t.Fatalf("accepted: %s", got)
				}
				if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "alice") {
					t.Errorf("the error echoes the URL: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, c.want) || strings.Contains(got, scram) == c.noScram {
				t.Errorf("got %s", got)
			}
		})
	}
}

// TestRemoteStoreWithoutTLSIgnored: the config check names the fix.
func TestRemoteStoreWithoutTLSIgnored(t *testing.T) {
	_, err := Parse("[store]\nurl = \"postgres://alice:hunter2@db.example/ctxhook\"\n")
	if err == nil || !strings.Contains(err.Error(), "sslmode=verify-full") || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("%v", err)
	}
}
